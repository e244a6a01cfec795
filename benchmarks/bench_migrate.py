"""Benchmark ``distfix migrate`` on a generated tree of 5,000 files.

About 5 % of the files are distributed-training scripts, and a share of those are Jupyter
notebooks. Reports files per second for ``--jobs 1`` and ``--jobs 2`` (a dry run: nothing is
written, every file with a trigger is fixed in memory and diffed for the report).

    python benchmarks/bench_migrate.py [--files 5000] [--lines-per-file 120]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_tree import generate  # noqa: E402

BIN = Path(sys.executable).parent


def _notebook_from(script: Path) -> None:
    """Turn a generated script into a notebook: one cell per top-level block, plus a magic."""
    blocks = script.read_text(encoding="utf-8").split("\n\n\n")
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": ("%matplotlib inline\n" if i == 0 else "") + block} for i, block in enumerate(blocks)]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    script.with_suffix(".ipynb").write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    script.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--lines-per-file", type=int, default=120)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="distfix-migrate-bench-"))
    tree = work / "tree"
    files, lines = generate(tree, args.files, args.files * args.lines_per_file)
    distributed = sorted(p for p in tree.rglob("*.py") if "tf.distribute" in p.read_text(encoding="utf-8"))
    for script in distributed[::4]:
        _notebook_from(script)
    notebooks = len(list(tree.rglob("*.ipynb")))
    print(f"tree: {files} files ({len(distributed)} distributed, {notebooks} of them notebooks), {lines} lines")
    for jobs in (1, 2):
        report = work / f"report-{jobs}.json"
        start = time.perf_counter()
        subprocess.run(
            [str(BIN / "distfix"), "migrate", str(tree), "--jobs", str(jobs), "--report", str(report),
             "--state-file", str(work / "state.json")],
            cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )
        elapsed = time.perf_counter() - start
        totals = json.loads(report.read_text())["totals"]
        print(f"--jobs {jobs}: {elapsed:6.2f} s, {files / elapsed:7.0f} files/s "
              f"({totals['found']} findings, {totals['fixed']} fixable, {totals['errors']} errors)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
