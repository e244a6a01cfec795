"""The migration report: the HTML one opened in headless Chromium when the machine has it
(else parsed with html.parser), and notebook diffs per cell in every format."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from repos import ADVICE_ONLY, BAD, make_repo, notebook

from fixer import __version__
from fixer.migrate.pr_body import write_pr_bodies
from fixer.migrate.run import MigrateOptions, migrate
from fixer.migrate.summary import MigrationReport, RepoOutcome, write_report
from fixer.migrate.validation import FileValidation

_VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "wbr"})


class _Collector(HTMLParser):
    """The text under each element with an id, the classes used, and any misnested tag."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.classes: list[str] = []
        self.problems: list[str] = []
        self._stack: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.classes += (attributes.get("class") or "").split()
        if "id" in attributes:
            self.ids[attributes["id"]] = ""
        if tag not in _VOID:
            self._stack.append((tag, attributes.get("id")))

    def handle_data(self, data):
        for _, element_id in self._stack:
            if element_id:
                self.ids[element_id] += data

    def handle_endtag(self, tag):
        if not self._stack or self._stack[-1][0] != tag:
            self.problems.append(f"</{tag}> closes {self._stack[-1][0] if self._stack else 'nothing'}")
            return
        self._stack.pop()


def _dom(report: Path) -> str:
    """The document as a browser sees it: headless Chromium's DOM when installed, else the file."""
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if chromium is None:
        return report.read_text(encoding="utf-8")
    shown = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", report.as_uri()],
        capture_output=True, text=True, timeout=90,
    )
    assert shown.returncode == 0 and "<html" in shown.stdout, shown.stderr
    return shown.stdout


def test_html_report_opens_and_is_honest(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD, "broken.py": "strategy.experimental_run_v2(\n"})
    report = tmp_path / "r.html"
    distfix("migrate", str(repo), "--report", str(report))
    html = report.read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html and 'src="' not in html and 'href="http' not in html, "self-contained"
    parser = _Collector()
    parser.feed(_dom(report))
    parser.close()
    assert parser.problems == []
    assert "could not be processed" in parser.ids["verdict"]
    assert "TFD401" in parser.ids["per-rule"]
    assert "broken.py" in parser.ids["errors"]
    assert "add" in parser.classes and "del" in parser.classes, "the diff is coloured"


NOTEBOOK_DIFF = """\
--- a/{path}:cell 2
+++ b/{path}:cell 2
@@ -1,2 +1,2 @@
 !ls
-d = strategy.experimental_distribute_datasets_from_function(fn)
\\ No newline at end of file
+d = strategy.distribute_datasets_from_function(fn)
\\ No newline at end of file
"""


def test_report_shows_notebook_diffs_per_cell(tmp_path, distfix):
    source = notebook(
        ["import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()"],
        ["!ls\n", "d = strategy.experimental_distribute_datasets_from_function(fn)"],
    )
    repo = make_repo(tmp_path / "repo", {"nb.ipynb": source})
    for name in ("r.json", "r.md", "r.html"):
        distfix("migrate", str(repo), "--report", str(tmp_path / name))
    expected = NOTEBOOK_DIFF.format(path=str(repo / "nb.ipynb").lstrip("/"))
    (row,) = json.loads((tmp_path / "r.json").read_text())["files"]
    assert row["diff"] == expected
    assert f"```diff\n{expected}```" in (tmp_path / "r.md").read_text()
    parser = _Collector()
    parser.feed((tmp_path / "r.html").read_text())
    assert parser.problems == [] and parser.classes.count("del") == 2 and parser.classes.count("add") == 2
    assert (repo / "nb.ipynb").read_text() == source, "a dry run writes nothing"


def test_reports_name_files_left_out_of_the_branch(tmp_path):
    outcome = RepoOutcome(path="repo", repo="repo", files=2, branch="fixes", commit="0123456789abcdef", skipped=["repo/new.py"])
    report = MigrationReport(results=[], repos=[outcome], seconds=0.5, wrote=True, unsafe=False)
    assert report.verdict == "No findings. 1 uncommitted file(s) were left out of the branch and not checked."
    write_report(report, tmp_path / "r.md")
    assert "- `repo`: 2 files, branch `fixes`, commit `0123456789ab`; 1 uncommitted file(s) left out of the branch and not checked: `repo/new.py`" in (tmp_path / "r.md").read_text()
    write_report(report, tmp_path / "r.html")
    parser = _Collector()
    parser.feed((tmp_path / "r.html").read_text())
    assert "1 uncommitted file(s) left out of the branch and not checked: repo/new.py" in parser.ids["repositories"]
    assert "ok" not in parser.classes, "the verdict is not shown as all good"


def test_pr_body_per_repository_with_repository_relative_paths(tmp_path, distfix):
    first = make_repo(tmp_path / "team-a" / "models", {"pkg/train.py": BAD, "advice.py": ADVICE_ONLY})
    second = make_repo(tmp_path / "team-b" / "models", {"train.py": BAD})
    untouched = make_repo(tmp_path / "clean", {"train.py": "x = 1\n"})
    out = tmp_path / "prs"
    result = distfix(
        "migrate", str(first), str(second), str(untouched), "--write", "--branch", "fixes", "--commit",
        "--report-dir", str(out), "--select", "TFD401",
    )
    assert result.returncode == 1, result.stderr  # the advice-only finding remains
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == ["models-2/PR.md", "models/PR.md"]
    body = (out / "models" / "PR.md").read_text()
    assert str(tmp_path) not in body, "nothing of the machine that ran it"
    assert "--- a/pkg/train.py\n+++ b/pkg/train.py\n" in body
    assert "| TFD401 renamed-distribute-api | 2 | 1 |" in body
    assert "- `advice.py:2:5` TFD401 renamed-distribute-api (advice): " in body
    assert "on branch `fixes`" in body and "Dry run" not in body
    assert "advice.py" not in (out / "models-2" / "PR.md").read_text(), "each body covers its own repository"
    assert f"distfix: pull-request body: {out / 'models' / 'PR.md'}" in result.stderr


def test_html_report_names_and_documents_rules_and_says_a_dry_run_wrote_nothing(tmp_path, distfix):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD, "advice.py": ADVICE_ONLY})
    report = tmp_path / "r.html"
    result = distfix("migrate", str(repo), "--report", str(report), "--select", "TFD401")
    assert "Dry run: nothing was written; run with --write to apply the fixes." in result.stdout
    assert " 2 fixable, " in result.stdout and "fixed" not in result.stdout
    html = report.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(html)
    assert parser.problems == []
    assert parser.ids["meta"].startswith(f"distfix {__version__} · ") and "UTC · distfix migrate " in parser.ids["meta"]
    assert f"--report {report}" in parser.ids["meta"]
    assert parser.ids["dry-run"].startswith("Dry run: nothing was written.")
    assert "TFD401 renamed-distribute-api" in parser.ids["per-rule"]
    assert '<a href="#rule-TFD401">' in html and "What it does" in parser.ids["rule-TFD401"]
    assert "(none)" not in html and "(advice)" in parser.ids["needs-a-person"]
    assert "<code>tf.distribute.experimental.MultiWorkerMirroredStrategy</code>" in html, "backticks are code"
    assert "`" not in parser.ids["needs-a-person"]
    markdown = tmp_path / "r.md"
    distfix("migrate", str(repo), "--report", str(markdown), "--select", "TFD401")
    text = markdown.read_text()
    assert "(none)" not in text and "| TFD401 renamed-distribute-api |" in text and f"distfix {__version__} · " in text


def test_pr_body_of_a_dry_run_shows_validation_verdicts_by_relative_path(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": BAD, "lib/util.py": BAD})
    report = migrate(MigrateOptions(paths=(str(repo),), state_file=tmp_path / "state.json"))
    report.validations = {str(repo / "train.py"): FileValidation("passed"), str(repo / "lib" / "util.py"): FileValidation("skipped", "not an entry point")}
    report.validation_backend = "local"
    (written,) = write_pr_bodies(report, tmp_path / "prs")
    body = written.read_text()
    assert written == tmp_path / "prs" / "repo" / "PR.md"
    assert body.startswith("## Fix TensorFlow distributed-training mistakes with distfix\n\n> **Dry run: nothing was written.**")
    assert "can fix 4 finding(s) in 2 file(s)" in body
    assert "(local backend):\n1 passed, 1 skipped." in body
    assert "<code>train.py</code>: 2 fixable, validation: passed" in body
    assert "<code>lib/util.py</code>: 2 fixable, validation: skipped" in body
    assert str(tmp_path) not in body
    write_report(report, tmp_path / "r.html")
    parser = _Collector()
    parser.feed((tmp_path / "r.html").read_text())
    assert parser.problems == [] and "".join(parser.ids["validation"].split()) == "passedfailedinconclusiveerrorskipped10001"
