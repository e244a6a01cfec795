"""The two-worker harness of the probes (benchmarks/probing.py, ``two_worker_outcomes``), run on
small worker scripts that import no TensorFlow: what each worker printed, its last error line, or
that it hung and was killed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "probing", Path(__file__).resolve().parent.parent / "benchmarks" / "probing.py"
)
assert _SPEC is not None and _SPEC.loader is not None
probing = importlib.util.module_from_spec(_SPEC)
sys.modules["probing"] = probing
_SPEC.loader.exec_module(probing)

# argv: CASE INDEX DIRECTORY, as the probes' workers take them. Worker 0 prints what it was given
# (its cluster from TF_CONFIG, the Keras switch, the shared folder); worker 1 fails with a traceback.
WORKER = """\
import json, os, sys
case, index, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3]
config = json.loads(os.environ["TF_CONFIG"])
if index == 0:
    print(case, config["task"], len(config["cluster"]["worker"]), os.environ["TF_USE_LEGACY_KERAS"],
          os.path.isdir(directory))
else:
    raise ValueError("the peer is gone")
"""

# Both workers wait for a peer that never comes.
HANGING = "import threading\nthreading.Event().wait()\n"


def test_each_worker_reports_what_it_printed_or_its_last_error(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    outcomes = probing.two_worker_outcomes(str(script), "a case", "1", 600)
    assert outcomes == [
        "a case {'type': 'worker', 'index': 0} 2 1 True",
        "ValueError: the peer is gone",
    ]


def test_a_worker_still_running_at_the_limit_is_killed_and_reported_hung(tmp_path: Path) -> None:
    script = tmp_path / "hanging.py"
    script.write_text(HANGING)
    outcomes = probing.two_worker_outcomes(str(script), "a case", "0", 2)
    assert outcomes == ["hung: still running after 2 s, killed"] * 2
