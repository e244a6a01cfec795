"""The original is compared with its version fixes applied, so the comparison isolates the distribution fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

RUNTIME = Path(__file__).resolve().parents[2] / "corpus" / "runtime"


@pytest.mark.tensorflow
def test_an_old_api_does_not_hide_the_mistake(tmp_path: Path):
    # Written for TF 2.1: `experimental_run_v2` (removed since) would crash before the mistake shows.
    text = (RUNTIME / "custom_loop_mirrored" / "reduce_in_replica_fn.py").read_text()
    assert "strategy.run(train_step" in text
    script = tmp_path / "train.py"
    script.write_text(text.replace("strategy.run(train_step", "strategy.experimental_run_v2(train_step"))
    report = validate(script, RunSpec(replicas=2, device="cpu", max_steps=3, timeout=300))
    original = report.variants["original"]
    assert original.checks[0].result == "fail" and "cross-replica context" in original.checks[0].detail, report.table()
    assert [d.split(" ", 1)[0] for d in original.diagnoses] == ["TFD302"], original.diagnoses
    assert any("version fixes the fixed script also has (TFD401)" in note for note in report.notes), report.notes
    assert report.verdict == "pass", report.table()
