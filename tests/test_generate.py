"""`make generate` (`distfix dev generate`) and `distfix dev new-rule`: the files derived from the
registry are current, a stale one is named and rewritten, and a scaffolded rule loads and passes
its example and corpus tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

from conftest import run_distfix

from fixer.dev.generate import ROOT, codes_table, render_readme, stale_files

if TYPE_CHECKING:
    from pathlib import Path

_TREE = ("fixer", "codemods", "corpus", "docs", "templates", "tests", "README.md", "pyproject.toml")


def _copy_tree(destination: Path) -> Path:
    for name in _TREE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        else:
            shutil.copy2(source, destination / name)
    return destination


def test_the_derived_files_are_current():
    stale = [str(path.relative_to(ROOT)) for path in stale_files()]
    assert stale == [], f"run `make generate`: {stale} differ from what the rule registry renders"


def test_the_codes_table_puts_one_family_per_line():
    assert codes_table(["TFD201", "TFD101", "TFD102"]) == '    "TFD101", "TFD102",\n    "TFD201",\n'


def test_the_codes_table_wraps_a_long_family_within_the_line_length():
    family = [f"TFD1{number:02d}" for number in range(1, 15)]
    lines = codes_table(family).splitlines()
    assert [line.count("TFD") for line in lines] == [10, 4]
    assert max(len(line) for line in lines) <= 120


def test_render_readme_replaces_only_the_table_between_the_markers():
    text = "intro\n<!-- rules-table:start -->\nold\n<!-- rules-table:end -->\nrest\n"
    assert render_readme(text, "new") == "intro\n<!-- rules-table:start -->\nnew\n<!-- rules-table:end -->\nrest\n"


def test_generate_check_names_a_stale_file_and_generate_rewrites_it(tmp_path):
    tree = _copy_tree(tmp_path)
    readme = tree / "README.md"
    readme.write_text(
        readme.read_text(encoding="utf-8").replace(
            "| TFD101 | created-outside-strategy-scope |", "| TFD101 | renamed |"
        ),
        encoding="utf-8",
    )
    stale = run_distfix("dev", "generate", "--check", cwd=tree)
    assert stale.returncode == 1 and "stale: README.md" in stale.stdout, stale.stdout + stale.stderr
    written = run_distfix("dev", "generate", cwd=tree)
    assert written.returncode == 0 and "wrote: README.md" in written.stdout
    assert readme.read_text(encoding="utf-8") == (ROOT / "README.md").read_text(encoding="utf-8")
    assert run_distfix("dev", "generate", "--check", cwd=tree).returncode == 0


def test_new_rule_is_scaffolded_registered_and_passes_its_tests(tmp_path):
    tree = _copy_tree(tmp_path)
    made = run_distfix("dev", "new-rule", "placement", "call-of-nothing", cwd=tree)
    assert made.returncode == 0, made.stderr
    code = "TFD" + str(max(int(c[3:]) for c in _codes(tree / "codemods" / "placement")))
    assert (tree / "codemods" / "placement" / "call_of_nothing_examples.py").is_file()
    assert (tree / "corpus" / "placement" / f"{code.lower()}_call_of_nothing" / "case.toml").is_file()
    listed = run_distfix("rules", cwd=tree)
    assert f"{code}  call-of-nothing" in listed.stdout
    assert run_distfix("dev", "generate", "--check", cwd=tree).returncode == 0  # codes, README, docs written
    tests = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            f"{code} or {code.lower()} or every_rule or rule_codes",
            "tests/test_rule_examples.py",
            "tests/test_corpus.py",
            "tests/test_codes.py",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout and f"{code}-invalid-8" in _collected(tree, code)


def test_new_rule_refuses_an_unknown_family_a_bad_name_and_an_existing_rule(tmp_path):
    tree = _copy_tree(tmp_path)
    unknown = run_distfix("dev", "new-rule", "nowhere", "x", cwd=tree)
    assert (
        unknown.returncode == 2 and "unknown family 'nowhere'" in unknown.stderr and "Traceback" not in unknown.stderr
    )
    bad = run_distfix("dev", "new-rule", "placement", "Bad Name", cwd=tree)
    assert bad.returncode == 2 and "lowercase words" in bad.stderr
    existing = run_distfix("dev", "new-rule", "placement", "several-strategies", cwd=tree)
    assert existing.returncode == 2 and "already exists" in existing.stderr


def _codes(package: Path) -> list[str]:
    import re

    return [m for path in package.glob("*.py") for m in re.findall(r'^\s*code = "(TFD\d{3})"', path.read_text(), re.M)]


def _collected(tree: Path, code: str) -> str:
    listing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            code,
            "tests/test_rule_examples.py",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return listing.stdout
