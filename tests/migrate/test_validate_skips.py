"""``migrate --validate`` without TensorFlow: why a changed script is not run, and the report and
exit code when nothing can run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repos import make_repo
from test_report import _Collector

from fixer.migrate.runnable import is_entry_point, skip_reason

SCRIPT_HEAD = "import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\n"


def _reason(tmp_path: Path, text: str, files: dict[str, str] | None = None, device: str = "cpu") -> str | None:
    for name, content in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    script = tmp_path / "train.py"
    script.write_text(text)
    return skip_reason(script, text, device)


def test_a_plain_training_script_can_run(tmp_path):
    assert _reason(tmp_path, SCRIPT_HEAD + "with strategy.scope():\n    model = tf.keras.Sequential()\n") is None


@pytest.mark.parametrize(
    "text, entry",
    [
        ("import tensorflow as tf\n\ndef build():\n    return tf.keras.Sequential()\n\nclass Trainer:\n    pass\n", False),
        ("import logging\nlog = logging.getLogger(__name__)\n__all__ = ['x']\n", False),
        ("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n", True),
        ("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n", True),
        ("history = model.fit(x, y)\n", True),
        ("for step in range(3):\n    train_step()\n", True),
    ],
    ids=["library", "bindings-only", "main-guard", "strategy-at-top", "fit-assigned", "loop"],
)
def test_entry_points_are_modules_that_run_code_at_their_top_level(text, entry):
    import ast

    assert is_entry_point(ast.parse(text)) is entry


def test_a_library_module_is_skipped(tmp_path):
    reason = _reason(tmp_path, "import tensorflow as tf\n\ndef make_strategy():\n    return tf.distribute.MirroredStrategy()\n")
    assert reason is not None and reason.startswith("not an entry point")


def test_a_module_the_environment_lacks_is_a_reason_but_one_next_to_the_script_is_not(tmp_path):
    text = SCRIPT_HEAD + "import helpers\nimport distfix_no_such_module.sub\nhelpers.run(strategy)\n"
    reason = _reason(tmp_path, text, {"helpers.py": "def run(s):\n    pass\n"})
    assert reason == (
        "imports `distfix_no_such_module`, which the Python that runs the validation cannot import "
        "(and no module of that name is next to the script)"
    )
    assert _reason(tmp_path, text, {"distfix_no_such_module/__init__.py": "", "distfix_no_such_module/sub.py": ""}) is None


def test_optional_and_type_checking_imports_are_not_needed(tmp_path):
    text = (
        SCRIPT_HEAD
        + "try:\n    import distfix_optional_a\nexcept ImportError:\n    distfix_optional_a = None\n"
        + "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import distfix_optional_b\n"
        + "strategy.run(print)\n"
    )
    assert _reason(tmp_path, text) is None


def test_relative_imports_run_only_inside_their_package(tmp_path):
    reason = _reason(tmp_path, "from . import models\n" + SCRIPT_HEAD)
    assert reason == "it imports relatively (line 1), so it runs only inside its package, not as a script"


def test_absent_data_files_are_a_reason_present_ones_and_outputs_are_not(tmp_path):
    reads = SCRIPT_HEAD + "import numpy as np\ntable = np.loadtxt(os.path.join('data', 'train.csv'))\n"
    assert _reason(tmp_path, reads) == (
        "reads `data/train.csv` (line 5), which is not there (the validation runs a copy of the script's own folder)"
    )
    assert _reason(tmp_path, reads, {"data/train.csv": "1,2\n"}) is None
    writes = SCRIPT_HEAD + "with open('log.txt', 'w') as out:\n    out.write('x')\n"
    assert _reason(tmp_path, writes) is None
    shards = SCRIPT_HEAD + "ds = tf.data.TFRecordDataset('shards/*.tfrecord')\n"
    assert "reads `shards/*.tfrecord`" in _reason(tmp_path, shards)
    remote = SCRIPT_HEAD + "ds = tf.data.TFRecordDataset('gs://bucket/train.tfrecord')\n"
    assert _reason(tmp_path, remote) == "reads remote data `gs://bucket/train.tfrecord` (line 4), which the run does not fetch"


def test_hardware_the_run_lacks_is_a_reason(tmp_path):
    tpu = "import tensorflow as tf\nresolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu='')\n"
    tpu += "strategy = tf.distribute.TPUStrategy(resolver)\n"
    assert _reason(tmp_path, tpu) == "needs a TPU (`TPUClusterResolver`), which this run does not have"
    nccl = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce())\n"
    assert _reason(tmp_path, nccl, device="cpu").startswith("needs GPUs (`NcclAllReduce`")
    gpus = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(devices=['/gpu:0', '/gpu:1'])\n"
    assert _reason(tmp_path, gpus, device="cpu") == "needs GPUs (the strategy names the device '/gpu:0'), which this run does not have"


def test_notebooks_are_not_run(tmp_path):
    notebook = tmp_path / "train.ipynb"
    assert skip_reason(notebook, "import tensorflow as tf\n").startswith("a notebook")


# A library module with a renamed API inside a function, and a script that needs a module this
# environment lacks: both changed by the fix, neither can run, so no TensorFlow starts.
LIBRARY = (
    "import tensorflow as tf\n\n\n"
    "def distribute(strategy, make):\n"
    "    return strategy.experimental_distribute_datasets_from_function(make)\n"
)
NEEDS_MODULE = (
    "import distfix_absent_dependency\nimport tensorflow as tf\n\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "dist = strategy.experimental_distribute_datasets_from_function(distfix_absent_dependency.make)\n"
)


def test_migrate_validate_reports_skips_with_their_reasons(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"lib/data.py": LIBRARY, "train.py": NEEDS_MODULE})
    report = tmp_path / "r.json"
    markdown = tmp_path / "r.md"
    result = distfix("migrate", str(repo), "--validate", "--report", str(report))
    assert result.returncode == 1, result.stderr  # changes not written
    data = json.loads(report.read_text())
    verdicts = {Path(f["path"]).name: f["validation"] for f in data["files"]}
    assert verdicts["data.py"]["status"] == "skipped"
    assert verdicts["data.py"]["reason"].startswith("not an entry point")
    assert verdicts["train.py"]["status"] == "skipped"
    assert "`distfix_absent_dependency`" in verdicts["train.py"]["reason"]
    assert data["validation"]["backend"] == "local"
    assert data["validation"]["totals"] == {"passed": 0, "failed": 0, "inconclusive": 0, "error": 0, "skipped": 2}
    assert data["verdict"].endswith("Validation of the changed scripts: 2 skipped.")
    distfix("migrate", str(repo), "--validate", "--report", str(markdown))
    assert "validation: **skipped**: imports `distfix_absent_dependency`" in markdown.read_text()
    html = tmp_path / "r.html"
    distfix("migrate", str(repo), "--validate", "--report", str(html))
    parser = _Collector()
    parser.feed(html.read_text())
    assert parser.problems == []
    assert parser.ids["validation"].split() == ["passedfailedinconclusiveerrorskipped", "00002"]
    assert "skipped" in parser.classes


def test_validation_options_need_validate(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": NEEDS_MODULE})
    result = distfix("migrate", str(repo), "--backend", "ray")
    assert result.returncode == 2 and "--backend and --address need --validate" in result.stderr
    result = distfix("migrate", str(repo), "--validate", "--address", "auto")
    assert result.returncode == 2 and "--address needs --backend ray" in result.stderr


def test_migrate_without_validate_has_no_validation_in_its_report(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": NEEDS_MODULE})
    report = tmp_path / "r.json"
    distfix("migrate", str(repo), "--report", str(report))
    data = json.loads(report.read_text())
    assert data["validation"] is None and data["files"][0]["validation"] is None


def _report(original, fixed):
    from fixer.validate.report import ValidationReport
    from fixer.validate.runner import RunSpec

    variants = {"original": original} if fixed is None else {"original": original, "fixed": fixed}
    return ValidationReport("train.py", RunSpec(), variants, ["a note"])


def test_a_failed_fix_gives_its_failed_checks_and_the_original_status():
    from fixer.migrate.validation import from_report
    from fixer.validate.checks import CheckResult
    from fixer.validate.report import VariantReport

    original = VariantReport("failed", [CheckResult("runs", "fail", "ValueError: bad")], "ValueError: bad")
    fixed = VariantReport(
        "failed",
        [CheckResult("runs", "pass", "2 replicas ran 3 steps"), CheckResult("replicas-consistent", "fail", "w differs on replica 1")],
        diagnoses=["TFD102 explains it"],
    )
    verdict = from_report(_report(original, fixed))
    assert verdict.status == "failed" and verdict.original == "failed"
    assert verdict.failed_checks == [{"name": "replicas-consistent", "detail": "w differs on replica 1"}]
    assert verdict.reason == "w differs on replica 1; TFD102 explains it"
    assert verdict.notes == ["a note"]


def test_an_inconclusive_run_says_which_checks_could_not_decide_and_no_compare_has_no_original():
    from fixer.migrate.validation import from_report
    from fixer.validate.checks import CheckResult
    from fixer.validate.report import VariantReport

    only = VariantReport(
        "inconclusive", [CheckResult("runs", "pass", "ran"), CheckResult("inputs-distinct", "inconclusive", "one worker")]
    )
    verdict = from_report(_report(only, None))
    assert verdict.status == "inconclusive" and verdict.original is None
    assert verdict.reason == "inputs-distinct: one worker" and verdict.failed_checks == []


def test_migrate_imports_neither_ray_nor_tensorflow_unless_it_validates_on_ray(tmp_path, heavy_imports):
    repo = make_repo(tmp_path / "repo", {"lib/data.py": LIBRARY})
    migrate = ["migrate", str(repo), "--no-progress"]
    assert heavy_imports(migrate, [*migrate, "--validate"]) == set()
