"""The rule facts a warm run uses without importing the rules: the code list and the source fingerprint."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import codemods
import fixer
from fixer.codes import KNOWN_CODES, RULE_CODES, fingerprint_sources, source_fingerprint, unknown_codes
from fixer.registry import default_registry

ROOT = Path(__file__).resolve().parent.parent
BAD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"


def test_rule_codes_list_every_rule_the_registry_discovers():
    discovered = tuple(rule.code for rule in default_registry().rules)
    assert RULE_CODES == discovered, "add the new rule's code to RULE_CODES in fixer/codes.py"


def test_unknown_codes_accepts_codes_and_prefixes_and_names_the_rest():
    assert unknown_codes(["TFD", "tfd1", "TFD101,TFD4", "TFD000"]) == []
    assert unknown_codes(["TFD101,TFD999", "X"]) == ["TFD999", "X"]
    assert "TFD000" in KNOWN_CODES


def _copy_packages(destination: Path) -> list[str]:
    roots = []
    for package in (Path(fixer.__file__).parent, Path(codemods.__path__[0])):
        shutil.copytree(package, destination / package.name, ignore=shutil.ignore_patterns("__pycache__"))
        roots.append(str(destination / package.name))
    return roots


def test_source_fingerprint_changes_with_any_rule_or_engine_file(tmp_path):
    roots = _copy_packages(tmp_path)
    assert fingerprint_sources(roots) == source_fingerprint()
    rule_file = next((tmp_path / "codemods").rglob("renamed_distribute_api.py"))
    rule_file.write_bytes(rule_file.read_bytes() + b"\n")
    edited = fingerprint_sources(roots)
    assert edited != source_fingerprint()
    (tmp_path / "fixer" / "tf" / "new_helper.py").write_text("")
    assert fingerprint_sources(roots) != edited


def _run_copy(copy: Path, script: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    """`distfix check` from the copied packages, reporting which heavy modules it imported."""
    probe = (
        "import sys\n"
        "from fixer.cli import main\n"
        f"sys.argv = ['distfix', 'check', '--select', 'TFD401', *{list(extra)!r}, {str(script)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('imported:', sorted(m for m in ('libcst', 'jinja2', 'fixer.engine', 'fixer.registry') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(copy), "DISTFIX_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env, cwd=copy)


def test_warm_check_imports_no_analysis_and_an_edited_rule_invalidates_it(tmp_path):
    copy = tmp_path / "install"
    _copy_packages(copy)
    script = tmp_path / "train.py"
    script.write_text(BAD)
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(script, ns=(hour_ago, hour_ago))  # old enough for the stat index to trust it
    cache = tmp_path / "cache"

    cold = _run_copy(copy, script, cache)
    assert "TFD401" in cold.stdout
    assert "'libcst'" in cold.stdout.splitlines()[-1]
    warm = _run_copy(copy, script, cache)
    assert warm.stdout.splitlines()[:-1] == cold.stdout.splitlines()[:-1]
    assert warm.stdout.splitlines()[-1] == "imported: []"
    # Touched (the stat index misses): the entry keyed on its bytes answers, before the
    # pre-filter, so the rules and libcst are still not imported.
    os.utime(script, ns=(hour_ago + 10**9, hour_ago + 10**9))
    touched = _run_copy(copy, script, cache)
    assert touched.stdout == warm.stdout

    # An edited rule (here its message) is a new version of distfix: no cached result is reused.
    rule_file = next((copy / "codemods").rglob("renamed_distribute_api.py"))
    source = rule_file.read_text()
    assert "is removed in {target.label()}" in source
    rule_file.write_text(source.replace("is removed in {target.label()}", "is gone in {target.label()}"))
    edited = _run_copy(copy, script, cache)
    assert "is gone in TensorFlow 2.21" in edited.stdout
    assert "'libcst'" in edited.stdout.splitlines()[-1]
