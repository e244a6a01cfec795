"""Do libcst's node validators ever refuse text CPython's parser accepts? (fixer/checked_parse.py)

Parses every `.py` blob at HEAD of the mirrors (bare clones, `DIR/<owner>+<name>/repo`) that
CPython's `ast.parse` accepts with `libcst.parse_module`, every node validator recording its
error instead of raising, and prints the count per (node class, error). Stops after ``--budget``
CPU seconds, at a repository's end.

    python benchmarks/scan_libcst_validators.py --mirrors /work/.mirror --budget 360

2026-11-28 (libcst 1.9.0, CPython 3.11): 43,561 files, 6.79 million lines from the first 208 of 354
mirrors; no validator raised.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import time
import warnings
from collections import Counter
from pathlib import Path

import libcst as cst
from libcst._nodes.base import CSTNode

failures: Counter[tuple[str, str, str]] = Counter()
examples: dict[tuple[str, str, str], str] = {}
current = [""]


def recording(node: CSTNode) -> None:
    """The validator hook during the scan: record, do not raise."""
    try:
        node._validate()
    except Exception as exc:  # any refusal counts, TypeError included (libcst issue #1061)
        key = (type(node).__name__, type(exc).__name__, str(exc)[:80])
        failures[key] += 1
        examples.setdefault(key, current[0])


def python_blobs(git: Path) -> list[tuple[str, bytes]]:
    """(path, content) of every `.py` blob at HEAD of the bare clone ``git``."""
    listing = subprocess.run(["git", f"--git-dir={git}", "ls-tree", "-r", "HEAD"], capture_output=True, text=True)
    blobs = []
    for line in listing.stdout.splitlines():
        meta, path = line.split("\t", 1)
        if path.endswith(".py") and meta.split()[1] == "blob":
            blobs.append((meta.split()[2], path))
    if not blobs:
        return []
    batch = subprocess.run(
        ["git", f"--git-dir={git}", "cat-file", "--batch"],
        input="".join(f"{sha}\n" for sha, _ in blobs).encode(),
        capture_output=True,
    ).stdout
    found, position = [], 0
    for _, path in blobs:
        header_end = batch.index(b"\n", position)
        header = batch[position:header_end].split()
        if header[1] == b"missing":
            position = header_end + 1
            continue
        size = int(header[2])
        found.append((path, batch[header_end + 1 : header_end + 1 + size]))
        position = header_end + 1 + size + 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--budget", type=float, default=360.0, help="CPU seconds")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # CPython's SyntaxWarnings on old code
    setattr(CSTNode, "__post_init__", recording)  # noqa: B010
    files = lines = refused = done = 0
    mirrors = sorted(p for p in args.mirrors.iterdir() if (p / "repo").is_dir())
    start = time.process_time()
    for mirror in mirrors:
        for path, data in python_blobs(mirror / "repo"):
            try:
                text = data.decode("utf-8")
                ast.parse(text)
            except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            files += 1
            lines += text.count("\n")
            current[0] = f"{mirror.name}:{path}"
            try:
                cst.parse_module(text)
            except Exception:  # the parser's own refusals (not validation): counted apart
                refused += 1
        done += 1
        if time.process_time() - start > args.budget:
            break
    print(f"{files} files, {lines} lines from {done} of {len(mirrors)} mirrors; libcst's parser refused {refused}")
    for key, count in failures.most_common():
        print(count, *key, examples[key])
    if not failures:
        print("no validator raised")


if __name__ == "__main__":
    main()
