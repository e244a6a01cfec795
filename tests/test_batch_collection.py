"""A batch run collects garbage less often while it runs, and leaves the collector as it found it."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import pytest

from fixer import runner
from fixer.batch_collection import YOUNG_THRESHOLD, batch_collection
from fixer.runner import Job

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(autouse=True)
def _collector_as_python_starts() -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)


def test_settings_during_the_run_and_restored_after_it() -> None:
    with batch_collection():
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_restored_when_the_run_raises() -> None:
    with pytest.raises(KeyboardInterrupt), batch_collection():
        raise KeyboardInterrupt
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_another_owners_freeze_is_left_frozen() -> None:
    gc.freeze()  # as the language server does after opening a document
    frozen = gc.get_freeze_count()
    with batch_collection():
        pass
    assert gc.get_freeze_count() == frozen
    gc.unfreeze()


def test_a_run_checks_its_files_under_the_batch_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    process = runner.process_file

    def recording(path: Path, job: Job) -> runner.FileResult:
        seen.append(gc.get_threshold()[0])
        return process(path, job)

    monkeypatch.setattr(runner, "process_file", recording)
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n")
    runner.run([script], Job(use_cache=False), jobs=1)
    assert seen == [YOUNG_THRESHOLD]
    assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0
