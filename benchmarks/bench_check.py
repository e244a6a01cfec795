"""Benchmark ``distfix check`` on real TensorFlow code or on a generated 300,000-line tree.

Reports, as the median of several runs: a cold check (no cache), a warm check (cache primed),
with ``--parse-all`` a bare libcst parse + unparse of every file, and ``ruff check --select ALL --no-cache`` on the
same tree in the same run (skipped with a message when ruff is not installed), with ratios;
the files each pre-filter stage keeps; and the peak memory of the whole process tree of a cold
check. Wall times are medians; CPU seconds (user + system, all processes) are given too, since
they hold when the machine is shared.

    python benchmarks/bench_check.py --real CLONES     # the real tree (see real_tree.py)
    python benchmarks/bench_check.py --tree DIR        # any tree of .py files
    python benchmarks/bench_check.py [--files 1300] [--lines 300000] [--keep DIR]  # generated

Options common to all: ``--runs 5``.
"""

from __future__ import annotations

import argparse
import os
import resource
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
from real_tree import MissingClone, build  # noqa: E402

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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path, env: dict[str, str], sample_memory: bool = False) -> tuple[float, float, int]:
    """Wall seconds and CPU seconds (all processes) of one run, and the peak tree RSS in MB when sampled."""
    peak = 0
    cpu_before = _children_cpu()
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
    return elapsed, _children_cpu() - cpu_before, peak // 1024


def median_of(runs: int, command: list[str], cwd: Path, env: dict[str, str], before=None) -> tuple[float, float]:
    """Median wall and median CPU seconds of ``runs`` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        if before:
            before()
        wall, cpu, _ = timed(command, cwd, env)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def filter_stages(tree: Path) -> tuple[int, int, int, int]:
    """Files in the tree, and files each pre-filter stage keeps (default configuration)."""
    from fixer.config import Config
    from fixer.runner import filter_stage

    stages = [filter_stage(path.read_bytes(), Config(), str(path)) for path in sorted(tree.rglob("*.py"))]
    kept_lines = sum(path.read_bytes().count(b"\n") for path, stage in zip(sorted(tree.rglob("*.py")), stages) if stage == 2)
    return len(stages), sum(s >= 1 for s in stages), sum(s == 2 for s in stages), kept_lines


def _tree(args: argparse.Namespace, work: Path) -> tuple[Path, str]:
    if args.tree:
        return args.tree.resolve(), f"tree {args.tree}"
    tree = work / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    if args.real:
        build(args.real, tree)
        return tree, "real tree (benchmarks/real-tree.toml)"
    generate(tree, args.files, args.lines)
    return tree, "generated tree"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--tree", type=Path, help="benchmark this existing tree")
    source.add_argument("--real", type=Path, metavar="CLONES", help="build the real tree from the clones in CLONES")
    parser.add_argument("--files", type=int, default=1300, help="generated tree: number of files")
    parser.add_argument("--lines", type=int, default=300_000, help="generated tree: number of lines")
    parser.add_argument("--keep", type=Path, help="build the tree and the cache here and keep them")
    parser.add_argument("--parse-all", action="store_true", help="also time a bare libcst parse of every file (slow)")
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="distfix-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree, label = _tree(args, work)
    except MissingClone as exc:
        print(f"skipped: {exc}")
        return 0
    files, stage1, stage2, kept_lines = filter_stages(tree)
    lines = sum(path.read_bytes().count(b"\n") for path in tree.rglob("*.py"))
    cache = work / "cache"
    # An installed distfix has its bytecode compiled; without it a warm run measures compiling
    # the modules it imports (PYTHONDONTWRITEBYTECODE is set in some sandboxes).
    inherited = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env = {**inherited, "DISTFIX_CACHE_DIR": str(cache)}
    distfix = [str(BIN / "distfix"), "check", "--exit-zero", "--format", "concise", str(tree)]
    ruff = shutil.which("ruff") or (str(BIN / "ruff") if (BIN / "ruff").exists() else None)
    ruff_command = [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--quiet", str(tree)] if ruff else None

    # Interleave distfix and ruff run by run, so that a load change on a shared machine hits both.
    cold_runs, ruff_runs = [], []
    for _ in range(args.runs):
        cold_runs.append(timed([*distfix, "--no-cache"], work, env)[:2])
        if ruff_command:
            ruff_runs.append(timed(ruff_command, work, env)[:2])
    cold = statistics.median(w for w, _ in cold_runs), statistics.median(c for _, c in cold_runs)
    ruff_time = (statistics.median(w for w, _ in ruff_runs), statistics.median(c for _, c in ruff_runs)) if ruff_runs else None
    peaks = [timed([*distfix, "--no-cache"], work, env, sample_memory=True)[2] for _ in range(2)]
    shutil.rmtree(cache, ignore_errors=True)
    timed(distfix, work, env)  # prime the cache
    warm = median_of(args.runs, distfix, work, env)
    parse = median_of(1, [sys.executable, "-c", PARSE_ALL, str(tree)], work, env) if args.parse_all else None

    print(f"{label}: {files} files, {lines} lines; {os.cpu_count()} cores; median of {args.runs} runs")
    print(f"pre-filter: stage 1 (triggers) keeps {stage1} files, stage 2 (needs) keeps {stage2} ({kept_lines} lines): parsed")
    print(f"{'measurement':<38} {'wall s':>8} {'cpu s':>8}")
    print(f"{'distfix check, cold (--no-cache)':<38} {cold[0]:>8.2f} {cold[1]:>8.2f}")
    print(f"{'distfix check, warm (cached)':<38} {warm[0]:>8.2f} {warm[1]:>8.2f}")
    if parse is not None:
        print(f"{'libcst parse + unparse, every file':<38} {parse[0]:>8.2f} {parse[1]:>8.2f}   ({parse[1] / cold[1]:.1f}x the cold check's cpu)")
    if ruff_time is not None:
        print(
            f"{'ruff check --select ALL --no-cache':<38} {ruff_time[0]:>8.2f} {ruff_time[1]:>8.2f}"
            f"   (cold distfix / ruff: {cold[0] / ruff_time[0]:.1f}x wall, {cold[1] / ruff_time[1]:.1f}x cpu)"
        )
    else:
        print("ruff: not installed, not compared (pip install ruff to compare)")
    print(f"peak memory of a cold check (all processes): {max(peaks)} MB")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
