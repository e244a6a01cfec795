"""Regression tests for issue 28 (prec33): ledger13a's false-positive classes 1-3, in our own words,
each with the control that keeps the finding where it is right.

- Class 1 (TFD109): a program whose own model code only builds on Keras 2 (`Input(shape=<int>)`,
  `tf.shape` of a symbolic Keras tensor: Keras 3 raises at construction, tf-keras builds both,
  benchmarks/probe_ledger13a_premises.py) runs on Keras 2, in the checked file or in a project
  module it imports; a Keras-3-only finding about its compiled step cannot happen.
- Class 2 (TFD504): an attribute (`self.net`) rebound in the same method under a second strategy:
  the `fit` before the rebinding trains the model of the first strategy's scope.
- Class 3 (TFD502): a docker-compose service built from the project whose `environment:` gives a
  TF_CONFIG of distinct hosts: each container writes its own relative path.
"""

from __future__ import annotations

import ast
import json
import textwrap
from typing import TYPE_CHECKING

import libcst as cst
import pytest

from fixer.engine import check_source
from fixer.runner import Job, run
from fixer.tf.index import ModuleIndex
from fixer.tf.keras2_builds import keras2_build
from fixer.tf.model import TFModel
from tests.precision.test_precision_prec22 import _TRAINED

if TYPE_CHECKING:
    from pathlib import Path


def _project_findings(root: Path, files: dict[str, str], checked: str, code: str) -> list[int]:
    """The lines of ``code``'s findings in ``checked`` when ``files`` are the project at ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (result,) = list(run([root / checked], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.start.line for f in result.findings if f.code == code]


# -- class 1: TFD109 in a program that only builds on Keras 2 ---------------------------------------

_STEP = """
import tensorflow as tf
from tensorflow import keras

from nets import make_net

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = make_net(8)
    optimizer = keras.optimizers.Adam()


def replica_step(features):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(net(features) ** 2)
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))


@tf.function
def step(features):
    strategy.run(replica_step, args=(features,))
"""

_INT_SHAPE = """
from tensorflow import keras

CODE_SIZE = 32


def make_net(width):
    codes = keras.layers.Input(shape=CODE_SIZE)
    return keras.Model(codes, keras.layers.Dense(width)(codes))
"""

_SHAPE_OF_SYMBOLIC = """
import tensorflow as tf
from tensorflow import keras


def make_net(width):
    inputs = keras.Input(shape=(width,))
    mean = keras.layers.Dense(width)(inputs)
    noise = tf.random.normal((tf.shape(mean)[0], width))
    return keras.Model(inputs, mean + noise)
"""

_KERAS3_BUILDS = """
import tensorflow as tf
from tensorflow import keras


class Noisy(keras.layers.Layer):
    def call(self, inputs):
        return inputs + tf.random.normal(tf.shape(inputs))


def make_net(width):
    inputs = keras.Input(shape=(width,))
    return keras.Model(inputs, Noisy()(keras.layers.Dense(width)(inputs)))
"""


@pytest.mark.parametrize("nets", [_INT_SHAPE, _SHAPE_OF_SYMBOLIC], ids=["int-shape", "shape-of-symbolic"])
def test_an_imported_model_only_keras2_builds_makes_the_program_keras2(tmp_path, nets):
    assert _project_findings(tmp_path, {"main.py": _STEP, "nets.py": nets}, "main.py", "TFD109") == []


def test_a_model_keras3_builds_keeps_tfd109(tmp_path):
    # `tf.shape` of a layer's own input inside `call` is a tensor there, under both Kerases.
    assert _project_findings(tmp_path, {"main.py": _STEP, "nets.py": _KERAS3_BUILDS}, "main.py", "TFD109") == [10]


def test_a_keras2_only_build_in_the_checked_file_counts_too(tmp_path):
    source = _STEP.replace("from nets import make_net\n", textwrap.dedent(_INT_SHAPE))
    assert _project_findings(tmp_path, {"main.py": source}, "main.py", "TFD109") == []


def test_a_stated_keras3_keeps_tfd109_despite_a_keras2_only_build(tmp_path):
    files = {"main.py": _STEP, "nets.py": _INT_SHAPE, "requirements.txt": "tensorflow==2.21.0\n"}
    assert _project_findings(tmp_path, files, "main.py", "TFD109") == [10]


def _built(source: str) -> tuple[int, str] | None:
    return keras2_build(ast.parse(textwrap.dedent(source)), {"tf": "tensorflow", "keras": "tensorflow.keras"})


@pytest.mark.parametrize(
    "source",
    [
        "x = keras.Input(shape=(3,))\n",  # a tuple
        "def f(n):\n    return keras.Input(shape=n)\n",  # a parameter: its value is not known
        "x = keras.Input(shape=(3,))\nf = keras.layers.Lambda(lambda t: tf.shape(t))\n",  # a layer's input
        "y = tf.zeros((2, 3))\nn = tf.shape(y)\n",  # an eager tensor
        "x = keras.Input(shape=(3,))\nn = keras.ops.shape(x)\n",  # Keras 3's own op
    ],
)
def test_constructions_keras3_builds_are_not_keras2_evidence(source):
    assert _built(source) is None


def test_a_name_bound_to_an_int_in_the_function_is_an_int_shape():
    assert _built("def f():\n    n = 150\n    return keras.layers.Input(shape=n)\n") == (3, "Input(shape=<int>)")


# -- class 2: TFD504, an attribute rebound under a second strategy ----------------------------------

_REBOUND = """
import tensorflow as tf


def build():
    return tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])


class Trainer:
    def run(self, ds):
        mirrored = tf.distribute.MirroredStrategy()
        with mirrored.scope():
            {net} = build()
            {net}.compile(loss="mse")
            {net}.fit(ds, epochs=2)
        mwms = tf.distribute.MultiWorkerMirroredStrategy()
        with mwms.scope():
            {net} = build()
            {net}.compile(loss="mse")
            {net}.fit(ds, epochs=2)
"""


@pytest.mark.parametrize("net", ["self.net", "net"])
def test_a_model_rebound_under_a_second_strategy_gives_the_earlier_fit_its_own(net):
    findings = check_source("train.py", _REBOUND.format(net=net)).findings
    assert [f.start.line for f in findings if f.code == "TFD504"] == [20]


_SET_ELSEWHERE = """
import tensorflow as tf


class Trainer:
    def __init__(self):
        self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with self.strategy.scope():
            self.net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
            self.net.compile(loss="mse")

    def train(self, ds, again):
        if again:
            self.net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        self.net.fit(ds, epochs=2)
"""


def test_an_attribute_that_may_still_hold_the_model_set_elsewhere_stays_reported():
    findings = check_source("train.py", _SET_ELSEWHERE).findings
    assert [f.start.line for f in findings if f.code == "TFD504"] == [15]


def _values_at(source: str) -> list[str | None]:
    """For each `print(self.net)` in ``source``, in order: the value of the assignment
    ``attribute_assignment_at`` gives for that read (None: none is known)."""
    module = cst.parse_module(textwrap.dedent(source))
    index = ModuleIndex.build(module)
    model = TFModel(module, index)
    reads = [c.args[0].value for c in index.calls if isinstance(c.func, cst.Name) and c.func.value == "print"]
    found = [model.semantic.attribute_assignment_at(cst.ensure_type(read, cst.Attribute)) for read in reads]
    return [None if f is None or f.value is None else module.code_for_node(f.value) for f in found]


def test_the_attribute_assignment_at_a_use_follows_the_paths_of_its_function():
    source = """
    class T:
        def run(self, flag):
            self.net = first
            print(self.net)
            if flag:
                self.net = second
            print(self.net)
            self.net = third
            print(self.net)
            for _ in range(2):
                self.net = fourth
            print(self.net)
    """
    # Either of two may reach the second read, and the loop may not run before the fourth.
    assert _values_at(source) == ["first", None, "third", None]


def test_an_attribute_the_function_does_not_assign_has_no_assignment_at_its_use():
    assert _values_at("class T:\n    def run(self):\n        print(self.net)\n") == [None]


# -- class 3: TFD502, workers in containers of a docker-compose file on distinct hosts -------------


def _compose_config(index: int, *addresses: str) -> str:
    return json.dumps({"cluster": {"worker": list(addresses)}, "task": {"type": "worker", "index": index}})


def _compose(environment: str, extra: str = "", build: str = "    build: .\n") -> str:
    return f"services:\n  trainer:\n{build}{extra}    environment:\n{environment}"


_OWN_HOSTS = ("10.20.0.11:2222", "10.20.0.12:2222", "10.20.0.13:2222")
_AS_MAPPING = f"      TF_CONFIG: '{_compose_config(0, *_OWN_HOSTS)}'\n"
_AS_LIST = f"      - TF_CONFIG={_compose_config(1, *_OWN_HOSTS)}\n"


def _tfd502(root: Path, compose: str) -> list[int]:
    files = {"train/train.py": _TRAINED + "model.save_weights('weights.weights.h5')\n", "docker-compose.yml": compose}
    return _project_findings(root, files, "train/train.py", "TFD502")


@pytest.mark.parametrize("environment", [_AS_MAPPING, _AS_LIST], ids=["mapping", "list"])
def test_a_compose_cluster_of_own_hosts_makes_a_relative_save_per_container(tmp_path, environment):
    assert _tfd502(tmp_path, _compose(environment)) == []


def test_a_compose_build_context_given_as_a_mapping_counts(tmp_path):
    build = "    build:\n      context: .\n      dockerfile: Dockerfile\n"
    assert _tfd502(tmp_path, _compose(_AS_MAPPING, build=build)) == []


@pytest.mark.parametrize(
    ("environment", "extra", "build"),
    [
        (_AS_MAPPING, "    volumes:\n      - ./:/workspace\n", "    build: .\n"),  # a host folder all share
        (_AS_MAPPING, "", "    image: tensorflow/tensorflow\n"),  # not built from the project
        (f"      TF_CONFIG: '{_compose_config(0, 'trainer:2222', 'trainer:2223')}'\n", "", "    build: .\n"),
        ("      TF_CONFIG: '${TF_CONFIG}'\n", "", "    build: .\n"),  # filled in on the host
    ],
    ids=["volume", "image", "one-host", "unread"],
)
def test_compose_clusters_that_may_share_files_stay_reported(tmp_path, environment, extra, build):
    assert _tfd502(tmp_path, _compose(environment, extra, build)) == [_TRAINED.count("\n") + 1]
