"""Benchmark ``distfix validate`` against the bare TensorFlow import time on this machine.

Reports: `python -c "import tensorflow"`, a 2-replica validation of one variant (with its
1-replica runs for the replica-count check), a 2-worker compare run, a 2-worker compare run
whose original fails on one worker (the other is stopped at once, not at the timeout), and the
same 2-worker compare run with ``--backend ray`` (a local Ray started and stopped by the run).

    python benchmarks/bench_validate.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DISTFIX = [sys.executable, "-m", "fixer"]


def wall(command: list[str], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    tf_import = wall([sys.executable, "-c", "import tensorflow"])
    one_variant = wall([*DISTFIX, "validate", "--no-compare", "--device", "cpu", str(ROOT / "corpus/reduction/tfd301_manual_update/after.py")], runs=2)
    two_workers = wall(
        [*DISTFIX, "validate", "--workers", "2", "--device", "cpu", "--timeout", "60",
         str(ROOT / "corpus/input/tfd202_dataset_fn_not_sharded/before.py")],
        runs=1,
    )
    two_workers_on_ray = wall(
        [*DISTFIX, "validate", "--workers", "2", "--device", "cpu", "--timeout", "60", "--backend", "ray",
         str(ROOT / "corpus/input/tfd202_dataset_fn_not_sharded/before.py")],
        runs=1,
    )
    one_fails = wall(
        [*DISTFIX, "validate", "--workers", "2", "--device", "cpu", "--timeout", "60",
         str(ROOT / "corpus/cluster/tfd601_hardcoded_tf_config/before.py")],
        runs=1,
    )
    label = 'python -c "import tensorflow"'
    print(f"{label:<52} {tf_import:6.2f} s")
    print(f"{'validate, 2 replicas, one variant (3 runs inside)':<52} {one_variant:6.2f} s  (TF import + {one_variant - tf_import:.1f} s)")
    print(f"{'validate, 2 workers, compare (original + fixed)':<52} {two_workers:6.2f} s")
    print(f"{'validate, 2 workers, compare, one worker fails':<52} {one_fails:6.2f} s  (--timeout 60)")
    print(f"{'validate, 2 workers, compare, --backend ray':<52} {two_workers_on_ray:6.2f} s")


if __name__ == "__main__":
    main()
