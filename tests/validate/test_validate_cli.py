"""``distfix validate`` through its command line (real TensorFlow in the child processes)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from fixer.validate import checks
from fixer.validate.runner import RunSpec, run_script

pytestmark = pytest.mark.tensorflow


def test_a_missing_module_or_file_cannot_be_validated(tmp_path: Path, distfix):
    (tmp_path / "helper.py").write_text("import definitely_missing_module_xyz\n")
    (tmp_path / "uses_helper.py").write_text("import tensorflow as tf\nimport helper\n")
    (tmp_path / "reads_data.py").write_text("import tensorflow as tf\n\nrows = open('data/train.csv').read()\n")
    module = distfix("validate", "--no-compare", "--device", "cpu", str(tmp_path / "uses_helper.py"), timeout=300)
    assert module.returncode == 2, module.stdout + module.stderr
    # The script's sibling module was found; the module it imports is what is missing.
    assert "cannot validate: the original script needs the module `definitely_missing_module_xyz` (line 2)" in module.stderr
    data = distfix("validate", "--no-compare", "--device", "cpu", str(tmp_path / "reads_data.py"), timeout=300)
    assert data.returncode == 2, data.stdout + data.stderr
    assert "cannot validate: the original script needs the file `data/train.csv` (line 3)" in data.stderr


ERRORS = {
    "traced": (
        "@tf.function\ndef step(x):\n    return tf.reshape(x, [3])\n\n\nstep(tf.constant([1.0, 2.0, 3.0, 4.0]))\n",
        "ValueError: Cannot reshape a tensor with 4 elements to shape [3]",
        "(line 5)",
    ),
    "at run time": (
        "@tf.function\ndef step(x):\n    return tf.debugging.check_numerics(x, 'x has a NaN')\n\n\nstep(tf.constant([float('nan')]))\n",
        "InvalidArgumentError: x has a NaN : Tensor had NaN values",
        "(line 5)",
    ),
    "without a message": ("def check():\n    assert tf.constant(1) == 2\n\n\ncheck()\n", "AssertionError: (no message) raised at boom.py:4 `assert tf.constant(1) == 2`", "(line 4)"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_show_the_real_type_message_and_script_line(tmp_path: Path, case: str):
    body, start, end = ERRORS[case]
    script = tmp_path / "boom.py"
    script.write_text("import tensorflow as tf\n\n" + body)
    dumps = run_script(script, script.read_text(), RunSpec(replicas=2, device="cpu"), tmp_path / "run")
    detail = checks.runs(dumps, 120).detail
    assert detail.startswith(start) and detail.endswith(end), detail
    assert "in user code" not in detail and "Graph execution error" not in detail


PRINTS = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable([1.0, 2.0])
for i in range(30):
    print("line", i)
"""


def test_output_tail_and_keep_temp(tmp_path: Path, distfix):
    script = tmp_path / "prints.py"
    script.write_text(PRINTS)
    kept = distfix("validate", "--no-compare", "--device", "cpu", "--keep-temp", "--format", "json", str(script), timeout=300)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    data = json.loads(kept.stdout)
    temp = Path(data["temp"])
    try:
        tail = data["variants"]["original"]["output"][0].splitlines()
        assert tail == [f"line {i}" for i in range(10, 30)]
        assert "line 0\n" in (temp / "original" / "output_0.txt").read_text()  # the whole output is kept
        assert (temp / "original" / "src" / "prints.py").read_text() == PRINTS
    finally:
        shutil.rmtree(temp)
    text = distfix("validate", "--no-compare", "--device", "cpu", str(script), timeout=300)
    assert text.returncode == 0, text.stdout + text.stderr
    assert "output of original (last lines):\n  line 10\n" in text.stdout and "  line 29\n" in text.stdout
    assert "temporary files kept" not in text.stdout


def test_timeout_kills_a_script_that_sleeps_forever(tmp_path: Path, distfix):
    script = tmp_path / "sleeps.py"
    script.write_text("import time\n\nimport tensorflow as tf\n\ntime.sleep(10**6)\n")
    started = time.monotonic()
    result = distfix("validate", "--no-compare", "--device", "cpu", "--timeout", "8", str(script), timeout=120)
    assert time.monotonic() - started < 100  # killed: the script itself would sleep for days
    assert result.returncode == 1, result.stdout + result.stderr
    assert "original / runs: still running after 8 s (killed)" in result.stdout


# Two workers apply their own gradients to a mirrored variable; distfix adds the all-reduce.
MANUAL_UPDATE = """\
import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    w = tf.Variable([1.0, 1.0])
features = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
labels = tf.constant([1.0, 2.0, 3.0, 4.0])
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(GLOBAL_BATCH)
iterator = iter(strategy.experimental_distribute_dataset(dataset))


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.reduce_sum(w * x, axis=1) - y)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grad = tape.gradient(loss, w)
    w.assign_sub(0.01 * grad)
    return loss


@tf.function
def train_step(iterator):
    x, y = next(iterator)
    per_replica = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


while True:
    print("loss", float(train_step(iterator)))
"""


def test_workers_max_steps_and_compare_json(tmp_path: Path, distfix):
    script = tmp_path / "manual.py"
    script.write_text(MANUAL_UPDATE)
    result = distfix("validate", "--workers", "2", "--max-steps", "3", "--device", "cpu", "--timeout", "300", "--format", "json", str(script), timeout=700)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert (data["workers"], data["max_steps"], data["verdict"]) == (2, 3, "pass")
    original, fixed = ({c["name"]: c for c in data["variants"][name]["checks"]} for name in ("original", "fixed"))
    for variant in (original, fixed):
        assert variant["runs"]["detail"] == "2 process(es) stopped cleanly after 3 step(s), 3 batch(es) (--max-steps)"
        assert variant["inputs-distinct"]["result"] == "pass"
    assert original["workers-consistent"]["result"] == "fail"
    assert original["workers-consistent"]["detail"].startswith("`w` is [0.915, 0.88] on worker 0 and [0.415, 0.32] on worker 1 after step 1")
    assert fixed["workers-consistent"]["result"] == "pass"
    assert [o.count("loss ") for o in data["variants"]["fixed"]["output"]] == [3, 3]


FAILS_AT_ONCE = """\
import json
import os
import time

import tensorflow as tf

if json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 1:
    raise RuntimeError("worker 1 gives up")
time.sleep(10**6)
"""


def test_a_failing_worker_stops_the_others_at_once(tmp_path: Path):
    script = tmp_path / "fails.py"
    script.write_text(FAILS_AT_ONCE)
    started = time.monotonic()
    dumps = run_script(script, FAILS_AT_ONCE, RunSpec(workers=2, device="cpu", timeout=300), tmp_path / "run")
    assert time.monotonic() - started < 150  # far below the 300 s timeout the other worker would wait
    assert [d.status for d in dumps] == ["stopped", "error"]
    assert checks.runs(dumps, 300).detail == "worker 1: RuntimeError: worker 1 gives up (line 8)"
