"""Benchmark ``distfix check`` on real TensorFlow code or on a generated 300,000-line tree.

Reports, as the median of several runs: a cold check (no cache), a warm check (cache primed),
with ``--parse-all`` a bare libcst parse + unparse of every file, and ``ruff check --select ALL --no-cache`` on the
same tree in the same run (skipped with a message when ruff is not installed), with ratios;
the files each pre-filter stage keeps; and the peak memory of the whole process tree of a cold
check. Wall times are medians; CPU seconds (user + system, all processes) are given too, since
they hold when the machine is shared.

    python benchmarks/bench_check.py --real CLONES     # the real tree (see real_tree.py)
    python benchmarks/bench_check.py --real CLONES --manifest benchmarks/heavy-tree.toml
                                                      # distribution-heavy trees, notebooks included
    python benchmarks/bench_check.py --tree DIR        # any tree of .py files
    python benchmarks/bench_check.py [--files 1300] [--lines 300000] [--keep DIR]  # generated

Options common to all: ``--runs 5``.

Then, per repository of a manifest (or per top-level folder with ``--per-folder``), one cold
check beside ruff; and the ten slowest files of the tree, each timed alone in this process
(CPU seconds). The guard: a file whose check takes more than 50 ms per 1,000 lines (at least
50 ms: small files pay a fixed cost) is flagged, and the benchmark exits 1.
"""

from __future__ import annotations

import argparse
import json
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
from real_tree import MANIFEST, MissingClone, build  # noqa: E402

SUFFIXES = (".py", ".ipynb")
GUARD_MS_PER_1000_LINES = 50.0

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


def sources(tree: Path) -> list[Path]:
    """The files distfix checks in ``tree``: Python files and notebooks."""
    return sorted(path for path in tree.rglob("*") if path.suffix in SUFFIXES and path.is_file())


def code_lines(path: Path) -> int:
    """Lines of code: of the file, or of a notebook's code cells."""
    data = path.read_bytes()
    if path.suffix != ".ipynb":
        return data.count(b"\n")
    try:
        cells = json.loads(data).get("cells", [])
    except (ValueError, AttributeError):
        return 0
    return sum(
        len("".join(c.get("source", [])).splitlines()) if isinstance(c.get("source"), list) else len(str(c.get("source", "")).splitlines())
        for c in cells
        if isinstance(c, dict) and c.get("cell_type") == "code"
    )


def filter_stages(tree: Path) -> tuple[int, int, int, int]:
    """Files in the tree, and files each pre-filter stage keeps (default configuration)."""
    from fixer.config import Config
    from fixer.runner import filter_stage

    paths = sources(tree)
    stages = [filter_stage(path.read_bytes(), Config(), str(path)) for path in paths]
    kept_lines = sum(code_lines(path) for path, stage in zip(paths, stages) if stage == 2)
    return len(stages), sum(s >= 1 for s in stages), sum(s == 2 for s in stages), kept_lines


def per_file_cpu(tree: Path) -> list[tuple[float, int, Path]]:
    """CPU seconds of a cold check of each file alone (in this process), with its lines; slowest first."""
    from fixer.runner import Job, process_file

    job = Job(use_cache=False)
    paths = sources(tree)
    if paths:
        process_file(paths[0], job)  # the first file would pay for importing the analysis
    timings = []
    for path in paths:
        start = time.process_time()
        process_file(path, job)
        timings.append((time.process_time() - start, code_lines(path), path))
    return sorted(timings, key=lambda t: t[0], reverse=True)


def over_budget(timings: list[tuple[float, int, Path]]) -> list[tuple[float, int, Path]]:
    """The files slower than the guard: 50 ms per 1,000 lines, and never less than 50 ms."""
    return [t for t in timings if t[0] * 1000 > GUARD_MS_PER_1000_LINES * max(t[1], 1000) / 1000]


def per_folder(tree: Path, distfix: list[str], ruff_command: list[str] | None, work: Path, env: dict[str, str]) -> None:
    """One cold check and one ruff run per top-level folder (a repository of the manifest)."""
    print(f"{'folder':<40} {'files':>6} {'parsed':>6} {'distfix s':>10} {'cpu':>7} {'ruff s':>7} {'cpu':>6} {'ratio':>6}")
    for folder in sorted(p for p in tree.iterdir() if p.is_dir()):
        files, _, parsed, _ = filter_stages(folder)
        wall, cpu, _ = timed([*distfix[:-1], str(folder), "--no-cache"], work, env)
        line = f"{folder.name:<40} {files:>6} {parsed:>6} {wall:>10.2f} {cpu:>7.2f}"
        if ruff_command:
            ruff_wall, ruff_cpu, _ = timed([*ruff_command[:-1], str(folder)], work, env)
            line += f" {ruff_wall:>7.2f} {ruff_cpu:>6.2f} {cpu / ruff_cpu:>5.1f}x"
        print(line)


def _tree(args: argparse.Namespace, work: Path) -> tuple[Path, str]:
    if args.tree:
        return args.tree.resolve(), f"tree {args.tree}"
    tree = work / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    if args.real:
        build(args.real, tree, args.manifest)
        return tree, f"real tree ({args.manifest.name})"
    generate(tree, args.files, args.lines)
    return tree, "generated tree"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--tree", type=Path, help="benchmark this existing tree")
    source.add_argument("--real", type=Path, metavar="CLONES", help="build the real tree from the clones in CLONES")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="with --real: the repositories (default real-tree.toml)")
    parser.add_argument("--per-folder", action="store_true", help="also one cold check per top-level folder (on with --real)")
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
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    files, stage1, stage2, kept_lines = filter_stages(tree)
    lines = sum(code_lines(path) for path in sources(tree))
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
    if args.real or args.per_folder:
        per_folder(tree, distfix, ruff_command, work, env)
    timings = per_file_cpu(tree)
    print(f"ten slowest files (CPU of a cold check of the file alone; {sum(t[0] for t in timings):.2f} s for all):")
    for seconds, count, path in timings[:10]:
        print(f"  {seconds * 1000:>8.0f} ms {count:>7} lines {seconds * 1e6 / max(count, 1):>7.1f} ms/1000 lines  {path.relative_to(tree)}")
    slow = over_budget(timings)
    for seconds, count, path in slow:
        print(f"GUARD: {path.relative_to(tree)}: {seconds * 1000:.0f} ms for {count} lines (budget {GUARD_MS_PER_1000_LINES:.0f} ms per 1,000)")
    print(f"guard: {len(slow)} files over {GUARD_MS_PER_1000_LINES:.0f} ms per 1,000 lines")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
