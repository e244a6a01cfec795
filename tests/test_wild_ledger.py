"""The ecosystem check's bookkeeping (benchmarks/wild.py) on a tiny tree written here: no clones, no network."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("wild", Path(__file__).resolve().parent.parent / "benchmarks" / "wild.py")
wild = importlib.util.module_from_spec(_SPEC)
sys.modules["wild"] = wild  # dataclasses resolve their module by name
_SPEC.loader.exec_module(wild)


def _finding(line: int, text: str, code: str = "TFD101", path: str = "train.py") -> object:
    return wild.WildFinding(repo="o/r", path=path, cell=None, line=line, code=code, text=text)


def _verdict(line: int, text: str | None, verdict: str = "tp", code: str = "TFD101") -> dict:
    entry = {"repo": "o/r", "path": "train.py", "cell": None, "line": line, "code": code, "verdict": verdict, "reason": "r"}
    if text is not None:
        entry["fingerprint"] = wild.fingerprint(text)
    return entry


def test_a_verdict_follows_its_line_when_code_above_it_moves():
    comparison = wild.compare([_finding(14, "model = build()")], [_verdict(12, "model = build()")])
    assert [(f.line, e["line"]) for f, e in comparison.verdicts] == [(14, 12)]
    assert comparison.new == [] and comparison.vanished == []


def test_identical_lines_pair_with_the_nearest_verdict():
    findings = [_finding(10, "opt = Adam()"), _finding(40, "opt = Adam()")]
    ledger = [_verdict(41, "opt = Adam()", "fp"), _verdict(11, "opt = Adam()", "tp")]
    pairs = sorted((f.line, e["verdict"]) for f, e in wild.compare(findings, ledger).verdicts)
    assert pairs == [(10, "tp"), (40, "fp")]


def test_changed_text_falls_back_to_the_same_line_and_otherwise_is_new_and_vanished():
    findings = [_finding(5, "model = build(1)"), _finding(30, "other()")]
    ledger = [_verdict(5, "model = build()"), _verdict(7, "gone()", "fp")]
    comparison = wild.compare(findings, ledger)
    assert [(f.line, e["line"]) for f, e in comparison.verdicts] == [(5, 5)]
    assert [f.line for f in comparison.new] == [30]
    assert [e["line"] for e in comparison.vanished] == [7]


def test_codes_and_cells_never_cross():
    notebook = wild.WildFinding(repo="o/r", path="train.py", cell=3, line=5, code="TFD101", text="x")
    comparison = wild.compare([notebook, _finding(5, "x", code="TFD402")], [_verdict(5, "x")])
    assert comparison.verdicts == [] and len(comparison.new) == 2 and len(comparison.vanished) == 1


def test_fix_wrong_is_counted_beside_the_finding_verdict_not_in_precision():
    fixed = wild.WildFinding(repo="o/r", path="train.py", cell=None, line=3, code="TFD101", text="a()", fix="unsafe")
    findings = [fixed, _finding(4, "b()", code="TFD402")]
    ledger = [_verdict(3, "a()", "tp"), _verdict(3, "a()", "fix-wrong"), _verdict(4, "b()", "noise", code="TFD402")]
    comparison = wild.compare(findings, ledger)
    assert len(comparison.fix_wrong) == 1 and comparison.new == []
    table = dict(wild.precision_table(comparison))
    assert wild.precision(table["TFD101"]) == 1.0
    assert wild.precision(table["TFD402"]) == 0.0
    assert wild.precision(table["all"]) == 0.5


def test_fix_wrong_pairs_with_the_finding_that_offers_a_fix_when_one_line_holds_two():
    # One line, two findings of one rule (same fingerprint): the first has no fix, the second a safe one.
    line = "s = Strategy(Old.NCCL)"
    bare = wild.WildFinding(repo="o/r", path="train.py", cell=None, line=7, code="TFD401", text=line)
    fixed = wild.WildFinding(repo="o/r", path="train.py", cell=None, line=7, code="TFD401", text=line, fix="safe")
    ledger = [_verdict(7, line, verdict, "TFD401") for verdict in ("fp", "fp", "fix-wrong")]
    comparison = wild.compare([bare, fixed], ledger)
    assert [f.fix for f, _ in comparison.fix_wrong] == ["safe"]
    assert comparison.new == [] and comparison.vanished == []
    assert wild.fix_counts([bare, fixed], comparison) == "fixes offered: safe 1 (wrong: 1)"


def test_a_fix_wrong_verdict_whose_finding_no_longer_offers_a_fix_vanishes():
    comparison = wild.compare([_finding(3, "a()")], [_verdict(3, "a()", "tp"), _verdict(3, "a()", "fix-wrong")])
    assert comparison.fix_wrong == [] and [e["verdict"] for e in comparison.vanished] == ["fix-wrong"]


def test_verdicts_of_repos_not_checked_do_not_vanish():
    other = dict(_verdict(1, "x"), repo="absent/repo")
    assert wild.compare([], [other], repos={"o/r"}).vanished == []
    assert wild.compare([], [other]).vanished == [other]


def test_an_unknown_verdict_is_rejected(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text(json.dumps(_verdict(1, "x", "maybe")) + "\n")
    with pytest.raises(ValueError, match="maybe"):
        wild.load_ledger(ledger)


def test_upgrade_verdicts_judge_only_runs_with_their_target_version(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    pinned, upgrade = _verdict(1, "x"), dict(_verdict(2, "y"), target="2.21")
    ledger.write_text(json.dumps(pinned) + "\n" + json.dumps(upgrade) + "\n")
    assert wild.load_ledger(ledger) == [pinned]
    assert wild.load_ledger(ledger, "2.21") == [pinned, upgrade]
    assert wild.load_ledger(ledger, "2.20") == [pinned]


def test_the_fingerprint_ignores_whitespace_only():
    assert wild.fingerprint("  model  =\tbuild() ") == wild.fingerprint("model = build()")
    assert wild.fingerprint("model = build(1)") != wild.fingerprint("model = build()")


def test_source_line_reads_notebook_cells_by_their_number(tmp_path):
    notebook = {"cells": [{"cell_type": "markdown", "source": ["# t"]},
                          {"cell_type": "code", "source": ["a = 1\n", "model  =   build()\n"]}]}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    assert wild.source_line(tmp_path, "n.ipynb", 2, 2) == "model = build()"
    assert wild.source_line(tmp_path, "n.ipynb", 9, 1) == ""


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_end_to_end_on_a_local_mirror(tmp_path, capsys):
    """A mirror made here, one finding with a verdict, one new: --strict fails and names the new one."""
    source = tmp_path / "src"
    (source / "keep").mkdir(parents=True)
    (source / "keep" / "train.py").write_text(
        "import tensorflow as tf\n"
        "strategy = tf.distribute.MirroredStrategy()\n"
        "strategy.experimental_run_v2(lambda: 1)\n"
        "strategy.experimental_run_v2(lambda: 2)\n"
    )
    (source / "skip").mkdir()
    (source / "skip" / "other.py").write_text("import tensorflow as tf\ntf.distribute.experimental.TPUStrategy\n")
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    commit = _git(source, "rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors" / "o+r"
    mirrors.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(mirrors / "repo")], check=True)
    repos = tmp_path / "repos.toml"
    repos.write_text(f'[[repo]]\nname = "o/r"\ncommit = "{commit}"\nfolders = ["keep"]\n'
                     f'[[repo]]\nname = "no/clone"\ncommit = "{commit}"\nfolders = []\n')
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text(json.dumps({"repo": "o/r", "path": "keep/train.py", "cell": None, "line": 3, "code": "TFD401",
                                  "fingerprint": wild.fingerprint("strategy.experimental_run_v2(lambda: 1)"), "verdict": "tp", "reason": "r"}) + "\n")
    stubs = tmp_path / "stubs.jsonl"
    argv = ["--repos", str(repos), "--ledger", str(ledger), "--mirrors", str(tmp_path / "mirrors"),
            "--work", str(tmp_path / "work"), "--select", "TFD401", "--strict", "--emit-new", str(stubs)]
    assert wild.main(argv) == 1
    out = capsys.readouterr().out
    assert "skip no/clone: no mirror" in out
    assert "NEW o/r keep/train.py:4 TFD401 | strategy.experimental_run_v2(lambda: 2)" in out
    assert [json.loads(line)["line"] for line in stubs.read_text().splitlines()] == [4]
    assert not (tmp_path / "work" / "o+r" / "skip").exists()


def test_seen_only_leaves_the_held_out_trees_unchecked(tmp_path, capsys):
    """Whoever changes rules runs --seen-only: a held-out tree is not even materialised."""
    repos = tmp_path / "repos.toml"
    repos.write_text('[[repo]]\nname = "a/seen"\ncommit = "c"\n[[repo]]\nname = "b/held"\ncommit = "c"\nunseen = true\n')
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("")
    wild.main(["--repos", str(repos), "--ledger", str(ledger), "--mirrors", str(tmp_path / "none"), "--seen-only"])
    out = capsys.readouterr().out
    assert "a/seen" in out and "b/held" not in out


def test_held_out_trees_are_read_from_the_list(tmp_path):
    repos = tmp_path / "repos.toml"
    repos.write_text('[[repo]]\nname = "a/seen"\ncommit = "c"\n[[repo]]\nname = "b/held"\ncommit = "c"\nunseen = true\n')
    assert [(s.name, s.unseen) for s in wild.load_repos(repos)] == [("a/seen", False), ("b/held", True)]


def test_precision_is_reported_for_seen_and_held_out_trees_apart():
    seen = [wild.WildFinding(repo="a/seen", path="t.py", cell=None, line=n, code="TFD101", text=f"s{n}") for n in (1, 2)]
    held = [wild.WildFinding(repo="b/held", path="t.py", cell=None, line=n, code="TFD101", text=f"h{n}") for n in (1, 2, 3)]
    ledger = [
        {"repo": f.repo, "path": f.path, "cell": None, "line": f.line, "code": f.code,
         "fingerprint": wild.fingerprint(f.text), "verdict": verdict, "reason": "r"}
        for f, verdict in zip(seen + held, ["tp", "tp", "tp", "fp", "noise"])
    ]
    comparison = wild.compare(seen + held, ledger)
    tables = {title: dict(table) for title, table in wild.split_tables(comparison, {"a/seen", "b/held"}, {"b/held"})}
    assert wild.precision(tables["all trees"]["all"]) == 0.6
    assert wild.precision(tables["seen trees (1)"]["TFD101"]) == 1.0
    assert wild.precision(tables["unseen trees, held out (1)"]["TFD101"]) == 1 / 3
    report = wild.format_report(comparison, "fixes offered: none", {"a/seen", "b/held"}, {"b/held"})
    assert "== unseen trees, held out (1)\nrule     tp   fp noise precision\nTFD101     1    1     1      0.33" in report


def test_without_a_held_out_tree_checked_only_the_overall_table_is_printed():
    comparison = wild.compare([_finding(1, "x")], [_verdict(1, "x")])
    assert [title for title, _ in wild.split_tables(comparison, {"o/r"}, {"other/held"})] == ["all trees"]


def test_parse_errors_are_not_a_rule_row_but_keep_their_verdicts():
    findings = [_finding(3, "a()"), _finding(1, "x = # TODO", code="TFD000")]
    ledger = [_verdict(3, "a()", "tp"), _verdict(1, "x = # TODO", "noise", code="TFD000")]
    comparison = wild.compare(findings, ledger)
    assert comparison.new == [] and len(comparison.verdicts) == 2  # the TFD000 verdict still pairs
    table = dict(wild.precision_table(comparison))
    assert "TFD000" not in table
    assert wild.precision(table["all"]) == 1.0  # the noise verdict of the parse error is not counted


def _notebook(cells: list[str]) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": text} for text in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_parse_errors_are_split_by_what_ipython_makes_of_the_same_source(tmp_path):
    # A fill-in-the-blank line fails in IPython too; a cell with a leading indent and a magic inside a
    # block are what IPython runs (it strips the indent and turns the magic into a call).
    (tmp_path / "lab.py").write_text("import tensorflow as tf\nx = # TODO: your code\n")
    magic_in_block = "try:\n    %time y\nexcept NameError:\n    pass\n"
    (tmp_path / "guide.ipynb").write_text(_notebook(["import os\n", " y = 1\n", magic_in_block]))
    findings = [
        _finding(2, "x = # TODO: your code", code="TFD000", path="lab.py"),
        wild.WildFinding(repo="o/r", path="guide.ipynb", cell=2, line=1, code="TFD000", text="y = 1"),
        wild.WildFinding(repo="o/r", path="guide.ipynb", cell=3, line=2, code="TFD000", text="%time y"),
        _finding(5, "model.fit(x)", code="TFD504", path="lab.py"),  # a rule's finding is not counted
        wild.WildFinding(repo="o/r", path="gone.ipynb", cell=1, line=1, code="TFD000", text=""),
    ]
    counts = wild.count_parse_errors(findings, tmp_path)
    assert (counts.total, counts.not_python, counts.wrongly_unparsable, counts.unknown) == (4, 1, 2, 1)
    report = wild.format_report(wild.compare(findings, []), "fixes offered: none", parse_errors=counts)
    assert ("parse errors: 4, of which really not Python (Python fails too, IPython in a notebook): 1, "
            "wrongly unparsable: 2, not checked: 1") in report


def test_a_py_file_with_shell_lines_is_judged_by_python_not_ipython(tmp_path):
    # A notebook exported to a .py file keeps its `!pip install` and `%magic` lines: `python file.py`
    # rejects them, so the file is really not Python. The same lines in a notebook cell are what
    # IPython runs (control), and a .py file Python compiles is one distfix should have parsed.
    exported = "# In[1]:\n!pip install -q tensorflow-datasets\n%matplotlib inline\nimport tensorflow as tf\n"
    (tmp_path / "exported.py").write_text(exported)
    (tmp_path / "plain.py").write_text("import tensorflow as tf\nprint(tf.__version__)\n")
    (tmp_path / "lab.ipynb").write_text(_notebook([exported.split("\n", 1)[1]]))
    findings = [
        _finding(2, "!pip install -q tensorflow-datasets", code="TFD000", path="exported.py"),
        _finding(1, "import tensorflow as tf", code="TFD000", path="plain.py"),
        wild.WildFinding(repo="o/r", path="lab.ipynb", cell=1, line=1, code="TFD000", text=""),
    ]
    counts = wild.count_parse_errors(findings, tmp_path)
    assert (counts.total, counts.not_python, counts.wrongly_unparsable, counts.unknown) == (3, 1, 2, 0)


def test_a_one_line_automagic_or_alias_cell_counts_as_what_ipython_runs(tmp_path):
    # IPython runs a bare `pip install x` (a magic) and `ls $DIR` (a default alias) without their
    # `%`, but only in a cell of one line: with a comment above, the same line fails there too.
    cells = ["pip install tensorflow-text\n", "ls $DATA_DIR\n", "# install\npip install x\n"]
    (tmp_path / "lab.ipynb").write_text(_notebook(cells))
    findings = [
        wild.WildFinding(repo="o/r", path="lab.ipynb", cell=n, line=1, code="TFD000", text="")
        for n in (1, 2, 3)
    ]
    counts = wild.count_parse_errors(findings, tmp_path)
    assert (counts.total, counts.not_python, counts.wrongly_unparsable) == (3, 1, 2)


def test_a_mirror_kept_as_repo_dot_git_is_found(tmp_path):
    """The fetch tool also writes `<owner>+<name>/repo/.git` (a git directory with no work tree)."""
    source = tmp_path / "source"
    source.mkdir()
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    git_dir = tmp_path / "mirrors" / "o+r" / "repo" / ".git"
    git_dir.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(git_dir)], check=True)
    spec = wild.RepoSpec("o/r", "0" * 40, (), True)
    assert wild.mirror_git_dir(tmp_path / "mirrors", spec) == git_dir
    assert wild.mirror_git_dir(tmp_path / "none", spec) is None


def test_a_materialised_tree_is_a_project_root_so_files_above_it_are_not_read(tmp_path):
    """A stray pin in the work folder's parent must not decide the tree's TensorFlow (here TF 2.1,
    where `run` does not exist yet, would silence TFD401)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "train.py").write_text(
        "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(lambda: 1)\n"
    )
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    spec = wild.RepoSpec(name="o/r", commit=_git(source, "rev-parse", "HEAD"), folders=("train.py",))
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "requirements.txt").write_text("tensorflow==2.1.0\n")
    dest = tmp_path / "work" / "o+r"
    assert wild.materialise(spec, source / ".git", dest) == []
    result = subprocess.run(
        [sys.executable, "-m", "fixer", "check", "--no-cache", "--select", "TFD401", str(dest)],
        capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent,
    )
    assert "TFD401" in result.stdout, result.stdout + result.stderr


def test_a_fix_wrong_verdict_stays_with_its_line_when_an_identical_line_elsewhere_keeps_its_finding():
    # Lines 9 and 30 read alike; the finding of line 9 is gone, line 30's rewrite was judged right.
    text = "options.policy = OFF"
    fixed = wild.WildFinding(
        repo="o/r", path="train.py", cell=None, line=30, code="TFD202", text=text, fix="unsafe"
    )
    ledger = [
        _verdict(9, text, "fp", "TFD202"),
        _verdict(9, text, "fix-wrong", "TFD202"),
        _verdict(30, text, "tp", "TFD202"),
    ]
    comparison = wild.compare([fixed], ledger)
    assert [(f.line, e["verdict"]) for f, e in comparison.verdicts] == [(30, "tp")]
    assert comparison.fix_wrong == []
    assert sorted(e["verdict"] for e in comparison.vanished) == ["fix-wrong", "fp"]
