"""Benchmark ``distfix check`` on a generated 300,000-line TensorFlow tree.

Reports, as the median of several runs: a cold check (no cache), a warm check (cache primed),
a bare libcst parse + unparse of every file, and ``ruff check --select ALL --no-cache`` when
ruff is installed, with ratios; plus the peak memory of the whole process tree of a cold check.

    python benchmarks/bench_check.py [--runs 3] [--files 1300] [--lines 300000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_tree import generate  # noqa: E402

BIN = Path(sys.executable).parent
PARSE_ALL = """
import sys, pathlib, libcst
for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):
    libcst.parse_module(path.read_text()).code
"""


def _tree_rss_kb(root_pid: int) -> int:
    """Sum of the resident memory of a process and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as handle:
                pages = int(handle.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        pid, parent = int(entry), int(fields[1])
        children.setdefault(parent, []).append(pid)
        rss[pid] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total, pending = 0, [root_pid]
    while pending:
        pid = pending.pop()
        total += rss.get(pid, 0)
        pending.extend(children.get(pid, []))
    return total


def timed(command: list[str], cwd: Path, env: dict[str, str], sample_memory: bool = False) -> tuple[float, int]:
    """Wall seconds of one run, and the peak tree RSS in MB when sampled."""
    peak = 0
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if sample_memory:
        def sample() -> None:
            nonlocal peak
            while process.poll() is None:
                peak = max(peak, _tree_rss_kb(process.pid))
                time.sleep(0.02)
        sampler = threading.Thread(target=sample)
        sampler.start()
    process.wait()
    elapsed = time.perf_counter() - start
    if sample_memory:
        sampler.join()
    return elapsed, peak // 1024


def median_of(runs: int, command: list[str], cwd: Path, env: dict[str, str], before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        times.append(timed(command, cwd, env)[0])
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=1300)
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--keep", type=Path, help="generate the tree here and keep it")
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="distfix-bench-"))
    tree = work / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    files, lines = generate(tree, args.files, args.lines)
    cache = work / "cache"
    env = {**os.environ, "DISTFIX_CACHE_DIR": str(cache)}
    distfix = [str(BIN / "distfix"), "check", "--exit-zero", "--format", "concise", str(tree)]

    cold = median_of(args.runs, [*distfix, "--no-cache"], work, env)
    _, peak_mb = timed([*distfix, "--no-cache"], work, env, sample_memory=True)
    timed(distfix, work, env)  # prime the cache
    warm = median_of(args.runs, distfix, work, env)
    parse = median_of(1, [sys.executable, "-c", PARSE_ALL, str(tree)], work, env)
    ruff = shutil.which("ruff") or (str(BIN / "ruff") if (BIN / "ruff").exists() else None)
    ruff_time = (
        median_of(args.runs, [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--quiet", str(tree)], work, env)
        if ruff
        else None
    )

    print(f"tree: {files} files, {lines} lines; {os.cpu_count()} cores; median of {args.runs} runs")
    print(f"{'measurement':<38} {'wall s':>8}")
    print(f"{'distfix check, cold (--no-cache)':<38} {cold:>8.2f}")
    print(f"{'distfix check, warm (cached)':<38} {warm:>8.2f}")
    print(f"{'libcst parse + unparse, every file':<38} {parse:>8.2f}   ({parse / cold:.1f}x the cold check)")
    if ruff_time is not None:
        print(f"{'ruff check --select ALL --no-cache':<38} {ruff_time:>8.2f}   (cold distfix is {cold / ruff_time:.1f}x ruff)")
    else:
        print("ruff: not installed (pip install ruff to compare)")
    print(f"peak memory of a cold check (all processes): {peak_mb} MB")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
