"""``validate`` names the rule that explains a run's error (no TensorFlow: error records as the child writes them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixer.engine import check_source
from fixer.validate.diagnose import KNOWN_ERRORS, KnownError, explain, known_error

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

# Messages as `distfix validate` reported them on TensorFlow 2.21 (first informative line).
MESSAGES = [
    ("InvalidArgumentError", "You must feed a value for placeholder tensor 'cond/else/_1/cond/Placeholder_1' with dtype int32", ("TFD109",)),
    ("RuntimeError", "Mixing different tf.distribute.Strategy objects: <MirroredStrategy object at 0x7f> is not <MirroredStrategy object at 0x7e>", ("TFD104",)),
    ("AssertionError", "(no message) raised at optimizer.py:134 `distribution.extended.update(`", ("TFD101", "TFD113")),
    ("AssertionError", "(no message) raised at steps.py:69 `return original(self, fn, args, kwargs, options)`", ("TFD101", "TFD113")),
    ("ValueError", "Variable (<tf.Variable 'dense/kernel:0' shape=(2, 1) dtype=float32>) was not created in the distribution strategy scope of (<MirroredStrategy object at 0x7f>).", ("TFD113", "TFD101")),
    ("ValueError", "DistributedVariable.handle is not available outside the replica context or a `tf.distribute.Strategy.update()` call.", ("TFD103",)),
    ("UnknownError", "Could not start gRPC server", ("TFD601", "TFD603")),
    ("ValueError", "Attempt to convert a value (PerReplica:{", ("TFD504",)),
    ("ValueError", "To use this dataset, you need to pass this dataset to ClusterCoordinator.create_per_worker_dataset.", ("TFD504",)),
    ("RuntimeError", "Collective ops must be configured at program startup", ("TFD105",)),
    ("RuntimeError", "Method requires being in cross-replica context, use get_replica_context().merge_call()", ("TFD302",)),
    ("AttributeError", "'MirroredStrategy' object has no attribute 'experimental_run_v2'", ("TFD401",)),
    ("AttributeError", "module 'keras._tf_keras.keras.layers' has no attribute 'experimental'", ("TFD403",)),
    ("AttributeError", "'LossScaleOptimizer' object has no attribute 'get_scaled_loss'", ("TFD403",)),
    ("AttributeError", "module 'keras.utils' has no attribute 'experimental'", ("TFD403",)),
    ("RuntimeError", "Virtual devices cannot be modified after being initialized", ("TFD111",)),
    ("TypeError", "BaseOptimizer.apply_gradients() got an unexpected keyword argument 'skip_gradients_aggregation'", ("TFD305",)),
    ("InvalidArgumentError", "{{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the required 2 shards/workers.", ("TFD205",)),
    ("ValueError", "SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`.", ("TFD114",)),
    (
        "RuntimeError",
        "`merge_call` called while defining a new graph or a tf.function. This can often happen if the function "
        "`fn` passed to `strategy.run()` contains a nested `@tf.function`",
        ("TFD110", "TFD107"),
    ),
    (
        "RuntimeError",
        "Exception encountered when calling Cond.call(). merge_call called while defining a new graph or a tf.function.",
        ("TFD110", "TFD107"),
    ),
    (
        "InvalidArgumentError",
        "Trying to access resource sequential/dense/kernel/replica_1/3 (defined @ /x/core.py:43) located in device "
        "/job:localhost/replica:0/task:0/device:CPU:1 from device /job:localhost/replica:0/task:0/device:CPU:0",
        ("TFD404",),
    ),
]


@pytest.mark.parametrize(("kind", "message", "codes"), MESSAGES, ids=[m[2][0] for m in MESSAGES])
def test_each_known_error_names_its_rules(kind: str, message: str, codes: tuple[str, ...]):
    lines = explain({"type": kind, "message": message, "line": 12}, [])
    assert [line.split(" ", 1)[0] for line in lines] == list(codes)
    assert all("(error at line 12)" in line for line in lines)


def test_an_unrelated_error_names_no_rule():
    assert explain({"type": "ValueError", "message": "boom in the script", "line": 4}, []) == []
    # A bare AssertionError raised by the script itself is not the TFD101 one.
    assert known_error({"type": "AssertionError", "message": "(no message) raised at train.py:3 `assert x`"}) is None


def test_a_finding_in_the_script_gives_its_line_and_fix():
    path = CORPUS / "placement" / "tfd103_step_called_directly" / "before.py"
    findings = check_source(str(path), path.read_text()).findings
    error = {"type": "ValueError", "message": "DistributedVariable.handle is not available outside the replica context", "line": 17}
    [line] = explain(error, findings)
    at = [f.start.line for f in findings if f.code == "TFD103"]
    assert line == (
        f"TFD103 train-step-outside-strategy-run explains this error (error at line 17): "
        f"distfix check finds it at line {', '.join(map(str, at))}; `distfix fix --unsafe-fixes` fixes it"
    )


def test_a_rule_not_found_in_the_script_says_what_its_fix_is():
    [line] = explain({"type": "ValueError", "message": "Attempt to convert a value (PerReplica:{", "line": None}, [])
    assert line == "TFD504 keras3-fit-under-multiworker explains this error, but distfix check does not find it in this script; the rule's fix is unsafe"


def test_a_code_the_registry_does_not_know_is_still_named():
    table = (KnownError(("TFD999",), re.compile("future error"), "a mistake a later rule will know"),)
    [line] = explain({"type": "RuntimeError", "message": "a future error", "line": 3}, [], table)
    assert line == (
        "TFD999 (a mistake a later rule will know; this distfix does not have that rule yet) explains this error "
        "(error at line 3), but distfix check does not find it in this script"
    )


def test_the_table_has_one_entry_per_pattern():
    assert len({e.pattern.pattern for e in KNOWN_ERRORS}) == len(KNOWN_ERRORS)


def test_only_the_rules_found_in_the_script_are_named_when_some_are():
    path = CORPUS / "placement" / "tfd113_model_loaded_outside_scope" / "before.py"
    findings = check_source(str(path), path.read_text()).findings
    error = {"type": "AssertionError", "message": "(no message) raised at steps.py:69 `return original(self, fn, args, kwargs, options)`", "line": 27}
    assert [line.split(" ", 1)[0] for line in explain(error, findings)] == ["TFD113"]
    assert [line.split(" ", 1)[0] for line in explain(error, [])] == ["TFD101", "TFD113"]
