"""TFD601 and Kubeflow Pipelines components: a function that KFP packages as a container component
runs as its own pod with a fixed role, so the TF_CONFIG it sets is that pod's launch
configuration (issue 28). A plain script with a hard-coded TF_CONFIG stays reported."""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source, fix_source

# A step's body as a notebook writes it: self-contained (KFP ships only the function's source),
# one fixed role per step.
STEP_BODY = """
    import json, os
    import tensorflow as tf
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": ["trainer-0.svc:2222", "trainer-1.svc:2222"]},
        "task": {"type": "worker", "index": 1},
    })
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""


def _step(header: str, name: str = "train_worker") -> str:
    body = textwrap.indent(textwrap.dedent(STEP_BODY), "    ")
    return f"{textwrap.dedent(header)}def {name}(epochs: int):{body}"


def tfd601(source: str) -> list:
    return [f for f in check_source("pipeline.py", source).findings if f.code == "TFD601"]


COMPONENTS = {
    "v1 func_to_container_op call": _step("from kfp.components import func_to_container_op\n")
    + "\ntrain_op = func_to_container_op(train_worker, base_image='tensorflow/tensorflow:2.15.0')\n",
    "v1 create_component_from_func with func=": _step("import kfp\nimport kfp.components as comp\n")
    + "\ntrain_op = comp.create_component_from_func(func=train_worker, base_image='tensorflow/tensorflow')\n",
    "v1 components module through kfp": _step("import kfp\n")
    + "\ntrain_op = kfp.components.create_component_from_func(train_worker)\n",
    "v1 used as a decorator": _step("from kfp.components import func_to_container_op\n@func_to_container_op\n"),
    "v2 dsl.component with options": _step("from kfp import dsl\n@dsl.component(base_image='tensorflow/tensorflow')\n"),
    "v2 bare component": _step("from kfp.dsl import component\n@component\n"),
    "v2 through kfp.v2": _step("from kfp.v2 import dsl\n@dsl.component\n"),
}


@pytest.mark.parametrize("source", COMPONENTS.values(), ids=COMPONENTS.keys())
def test_a_pipeline_components_own_tf_config_is_not_reported(source):
    assert tfd601(source) == []


@pytest.mark.parametrize("source", COMPONENTS.values(), ids=COMPONENTS.keys())
def test_no_fix_deletes_a_pipeline_components_tf_config(source):
    fixed = fix_source("pipeline.py", source, unsafe=True).fixed_text
    assert fixed is None or 'os.environ["TF_CONFIG"]' in fixed


def test_a_plain_training_script_is_still_reported():
    source = textwrap.dedent(STEP_BODY)
    assert len(tfd601(source)) == 1


def test_a_plain_function_that_is_not_made_a_component_is_still_reported():
    source = _step("import kfp\n", name="train_locally") + "\ntrain_locally(3)\n"
    assert len(tfd601(source)) == 1


def test_only_the_function_given_to_kfp_is_a_component():
    source = (
        _step("from kfp.components import func_to_container_op\n", name="train_worker")
        + "\n"
        + _step("", name="train_locally")
        + "\ntrain_op = func_to_container_op(train_worker)\n"
    )
    (finding,) = tfd601(source)
    local_def_line = source[: source.index("def train_locally")].count("\n") + 1
    assert finding.start.line > local_def_line


def test_a_decorator_named_component_from_another_library_is_not_kfp():
    source = _step("from mylib.registry import component\n@component\n")
    assert len(tfd601(source)) == 1
