"""Ecosystem check: distfix on public TensorFlow trees, every finding compared with a verdict ledger.

The trees are listed in ``benchmarks/wild-repos.toml`` (repository, commit, folders) and taken from
local git mirrors (``<mirrors>/<owner>+<repo>/repo``, as the ``fetch`` tool lays them out) with no
network. Each finding of ``distfix check`` is matched with a line of ``benchmarks/wild-verdicts.jsonl``:

    {"repo": "owner/name", "path": "a/b.py", "cell": null, "line": 12, "code": "TFD101",
     "fingerprint": "3f2a9c01d4e7", "verdict": "tp", "reason": "one line"}

``verdict`` is ``tp`` (a real problem an expert would want fixed), ``fp`` (wrong), ``noise``
(true but not worth reporting) or ``fix-wrong`` (the finding's unsafe fix rewrites the code wrongly;
an extra line beside the finding's own verdict). ``cell`` is the 1-based notebook cell (null for a
``.py`` file); ``fingerprint`` is a short hash of the finding's source line with its whitespace
collapsed (a hash, so that the ledger holds no code of the public trees).

Matching (so that small edits above a finding do not orphan its verdict): a finding and a verdict
belong together when repository, path, cell, code and fingerprint are equal; several candidates
pair by the nearest line. A verdict whose line text no finding has any more falls back to the exact
line number.

    python benchmarks/wild.py [--mirrors DIR] [--work DIR] [--strict] [--emit-new FILE]
    python benchmarks/wild.py --fix-diffs DIR      # also write every `fix --diff --unsafe-fixes`

Prints precision per rule and overall (tp / (tp + fp + noise)), findings without a verdict and
verdicts whose finding vanished. TFD000 (a file or cell distfix could not parse) is not a rule: it is
left out of the precision tables and counted on a line of its own, split by whether the same source
fails where it runs too (IPython for a notebook cell, Python for a ``.py`` file:
``wild_parse_errors.py``); its verdicts stay in the ledger. Trees marked ``unseen = true`` are held
out (nobody tunes rules on them): their precision is printed apart from the seen trees', as the
estimate for code never read.
Exit 1 with ``--strict`` when a finding has no verdict.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # run as a script or loaded by path (tests): its sibling module

from wild_parse_errors import PARSE_ERROR, ParseErrorCounts, count_parse_errors  # noqa: E402

PROJECT = HERE.parent
DEFAULT_MIRRORS = "/work/.mirror"
MIRRORS_ENV = "DISTFIX_WILD_MIRRORS"
DETECTION_VERDICTS = ("tp", "fp", "noise")
FIX_WRONG = "fix-wrong"


@dataclass(frozen=True)
class RepoSpec:
    """One public tree: ``owner/name``, the commit judged, the folders taken from it, and whether it
    is held out (``unseen``: no rule is tuned on its findings or code)."""

    name: str
    commit: str
    folders: tuple[str, ...]
    unseen: bool = False

    @property
    def slug(self) -> str:
        """The directory name of its mirror and of its work tree (``owner+name``)."""
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class WildFinding:
    """A finding of ``distfix check`` on a wild tree, with the text of its source line."""

    repo: str
    path: str
    cell: int | None
    line: int
    code: str
    text: str
    message: str = ""
    fix: str | None = None  # the applicability of the finding's fix ("safe", "unsafe"), None without one


@dataclass
class Comparison:
    """Findings paired with the ledger's verdicts, and what is left over on either side."""

    verdicts: list[tuple[WildFinding, dict]] = field(default_factory=list)
    fix_wrong: list[tuple[WildFinding, dict]] = field(default_factory=list)
    new: list[WildFinding] = field(default_factory=list)
    vanished: list[dict] = field(default_factory=list)


def fingerprint(text: str) -> str:
    """The ledger's key for a source line: 12 hex digits of the SHA-1 of its collapsed text."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


def load_repos(path: Path) -> list[RepoSpec]:
    """The ``[[repo]]`` tables of the repository list."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [
        RepoSpec(entry["name"], entry["commit"], tuple(entry.get("folders", ())), bool(entry.get("unseen", False)))
        for entry in data.get("repo", [])
    ]


def mirror_git_dir(mirrors: Path, spec: RepoSpec) -> Path | None:
    """The git directory of a repository's local mirror, or None when there is none (the fetch tool
    writes either a bare `repo` or a `repo/.git` holding only the git directory)."""
    for candidate in (mirrors / spec.slug / "repo", mirrors / spec.slug / "repo" / ".git", mirrors / spec.slug):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], input=stdin, capture_output=True, check=False
    )


def materialise(spec: RepoSpec, git_dir: Path, dest: Path) -> list[str]:
    """Write the spec's folders at its commit into ``dest``; return the paths whose blobs are absent.

    Blobs are read one by one through ``git cat-file --batch`` rather than ``git archive``, because a
    snapshot mirror may lack its largest files and ``archive`` stops at the first missing object.
    """
    listing = _git(git_dir, "ls-tree", "-r", "-z", spec.commit, "--", *spec.folders)
    if listing.returncode != 0:
        raise RuntimeError(listing.stderr.decode(errors="replace").strip())
    entries = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":  # symlinks are skipped: they may point outside
            entries.append((name.decode("utf-8", errors="surrogateescape"), sha.decode()))
    batch = _git(git_dir, "cat-file", "--batch", stdin="".join(f"{sha}\n" for _, sha in entries).encode())
    stream, offset, missing = batch.stdout, 0, []
    for name, _ in entries:
        header_end = stream.index(b"\n", offset)
        header = stream[offset:header_end].split()
        offset = header_end + 1
        if header[-1] == b"missing":
            missing.append(name)
            continue
        size = int(header[2])
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(stream[offset : offset + size])
        offset += size + 1
    # The root of a real clone holds `.git`, where distfix's version walk stops; without it the walk
    # would climb into the work folder's parents and read whatever stray files sit there.
    (dest / ".git").mkdir(parents=True, exist_ok=True)
    return missing


def _distfix(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run this project's CLI (the checkout this script belongs to) in a child process."""
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    return subprocess.run(
        [sys.executable, "-m", "fixer", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def source_line(tree: Path, path: str, cell: int | None, line: int) -> str:
    """The finding's source line with runs of whitespace collapsed ("" when it cannot be read)."""
    try:
        raw = (tree / path).read_text(encoding="utf-8", errors="replace")
        if cell is None:
            lines = raw.splitlines()
        else:
            source = json.loads(raw)["cells"][cell - 1]["source"]
            lines = ("".join(source) if isinstance(source, list) else source).splitlines()
        return " ".join(lines[line - 1].split())
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return ""


def check_tree(repo: str, tree: Path, select: list[str] = (), target_version: str | None = None) -> list[WildFinding]:
    """Every finding of ``distfix check`` on a materialised tree, paths relative to the tree
    (with ``target_version``: `--target-version`, the upgrade findings too)."""
    selection = [option for code in select for option in ("--select", code)]
    if target_version:
        selection += ["--target-version", target_version]
    result = _distfix(["check", "--format", "json", "--exit-zero", "--no-cache", *selection, "."], tree)
    # Exit 2 means a file error (a TFD000 finding, an unreadable file); the other files are reported.
    if result.returncode not in (0, 2) or not result.stdout.strip():
        raise RuntimeError(f"distfix check failed on {repo} (exit {result.returncode}): {result.stderr.strip()}")
    findings = []
    for item in json.loads(result.stdout):
        path = os.path.normpath(item["path"])
        findings.append(
            WildFinding(
                repo=repo,
                path=path,
                cell=item.get("cell"),
                line=item["line"],
                code=item["code"],
                text=source_line(tree, path, item.get("cell"), item["line"]),
                message=item.get("message", ""),
                fix=(item.get("fix") or {}).get("applicability"),
            )
        )
    return findings


def load_ledger(path: Path, target_version: str | None = None) -> list[dict]:
    """The ledger's verdicts (blank lines and ``//`` comment lines are allowed). A verdict with a
    ``target`` key judges a finding of `--target-version` that version (an upgrade finding): it is
    used only in a run with that ``target_version``; the others judge the pinned version."""
    if not path.exists():
        return []
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        entry = json.loads(line)
        if entry.get("verdict") not in (*DETECTION_VERDICTS, FIX_WRONG):
            raise ValueError(f"{path}:{number}: unknown verdict {entry.get('verdict')!r}")
        if entry.get("target") in (None, target_version):
            entries.append(entry)
    return entries


def _pair(findings: list[WildFinding], entries: list[dict]) -> tuple[list[tuple[WildFinding, dict]], list[WildFinding], list[dict]]:
    """Pair findings with ledger entries: same text (nearest line first), then same line."""
    pairs: list[tuple[WildFinding, dict]] = []
    free_findings = list(findings)
    free_entries = list(entries)
    for same in (
        lambda f, e: e.get("fingerprint") is not None and fingerprint(f.text) == e["fingerprint"],
        lambda f, e: f.line == e["line"],
    ):
        candidates = sorted(
            (
                (abs(f.line - e["line"]), fi, ei)
                for fi, f in enumerate(free_findings)
                for ei, e in enumerate(free_entries)
                if f.cell == e.get("cell") and same(f, e)
            ),
        )
        used_f: set[int] = set()
        used_e: set[int] = set()
        for _, fi, ei in candidates:
            if fi in used_f or ei in used_e:
                continue
            used_f.add(fi)
            used_e.add(ei)
            pairs.append((free_findings[fi], free_entries[ei]))
        free_findings = [f for i, f in enumerate(free_findings) if i not in used_f]
        free_entries = [e for i, e in enumerate(free_entries) if i not in used_e]
    return pairs, free_findings, free_entries


def compare(findings: list[WildFinding], ledger: list[dict], repos: set[str] | None = None) -> Comparison:
    """Match findings with verdicts. Only verdicts of ``repos`` (default: all) can vanish."""
    def group(items, key):
        groups = defaultdict(list)
        for item in items:
            groups[key(item)].append(item)
        return groups

    findings_by = group(findings, lambda f: (f.repo, f.path, f.code))
    comparison = Comparison()
    for kind in ("detection", FIX_WRONG):
        chosen = [e for e in ledger if (e["verdict"] == FIX_WRONG) == (kind == FIX_WRONG)]
        if repos is not None:
            chosen = [e for e in chosen if e["repo"] in repos]
        entries_by = group(chosen, lambda e: (e["repo"], e["path"], e["code"]))
        judged = {id(f): e for f, e in comparison.verdicts}
        for key in sorted(set(findings_by) | set(entries_by)):
            candidates = findings_by.get(key, [])
            if kind == FIX_WRONG:
                # A fix-wrong verdict judges a rewrite: only a finding that offers one can carry it (one
                # line may hold two findings of a rule, one with a fix and one without, same fingerprint).
                candidates = [f for f in candidates if f.fix is not None]
                pairs, lonely_entries = _pair_fix_wrong(candidates, entries_by.get(key, []), judged)
                comparison.vanished.extend(lonely_entries)
                comparison.fix_wrong.extend(pairs)
                continue
            pairs, lonely_findings, lonely_entries = _pair(candidates, entries_by.get(key, []))
            comparison.vanished.extend(lonely_entries)
            comparison.verdicts.extend(pairs)
            comparison.new.extend(lonely_findings)
    return comparison


def _pair_fix_wrong(
    findings: list[WildFinding], entries: list[dict], judged: dict[int, dict]
) -> tuple[list[tuple[WildFinding, dict]], list[dict]]:
    """Pair fix-wrong verdicts with the findings (offering a fix) whose detection verdict sits on the
    verdict's own line: a rewrite is judged with its finding, so an identical line elsewhere whose
    finding outlived this one does not inherit the verdict. The unpaired verdicts have vanished."""
    pairs: list[tuple[WildFinding, dict]] = []
    lonely: list[dict] = []
    free = list(findings)
    for entry in entries:
        found = next(
            (
                f
                for f in free
                if (verdict := judged.get(id(f))) is not None
                and (verdict["line"], verdict.get("cell"), verdict.get("fingerprint"))
                == (entry["line"], entry.get("cell"), entry.get("fingerprint"))
            ),
            None,
        )
        if found is None:
            lonely.append(entry)
        else:
            free.remove(found)
            pairs.append((found, entry))
    return pairs, lonely


def precision_table(comparison: Comparison, repos: set[str] | None = None) -> list[tuple[str, Counter]]:
    """Verdict counts per rule (sorted by code), then the row ``all``; only the findings of
    ``repos`` when given. TFD000 is no rule: its parse errors are counted apart (``ParseErrorCounts``)."""
    per_rule: dict[str, Counter] = defaultdict(Counter)
    for finding, entry in comparison.verdicts:
        if finding.code == PARSE_ERROR:
            continue
        if repos is None or finding.repo in repos:
            per_rule[finding.code][entry["verdict"]] += 1
    total = Counter()
    for counts in per_rule.values():
        total.update(counts)
    return [*sorted(per_rule.items()), ("all", total)]


def precision(counts: Counter) -> float | None:
    """tp / (tp + fp + noise), or None without any verdict."""
    judged = sum(counts[v] for v in DETECTION_VERDICTS)
    return counts["tp"] / judged if judged else None


def ledger_stub(finding: WildFinding, target_version: str | None = None) -> dict:
    """A ledger line for a finding without a verdict (verdict and reason to be filled in)."""
    stub = {
        "repo": finding.repo, "path": finding.path, "cell": finding.cell, "line": finding.line,
        "code": finding.code, "fingerprint": fingerprint(finding.text), "verdict": "",
        "reason": f"{finding.message} | {finding.text}",
    }
    return {**stub, "target": target_version} if target_version else stub


def fix_counts(findings: list[WildFinding], comparison: Comparison) -> str:
    """How many fixes are offered per applicability, and how many of them the ledger calls wrong."""
    offered = Counter(f.fix for f in findings if f.fix)
    wrong = Counter(f.fix for f, _ in comparison.fix_wrong)
    parts = [f"{kind} {offered[kind]} (wrong: {wrong[kind]})" for kind in sorted(offered)]
    return "fixes offered: " + (", ".join(parts) if parts else "none")


def _table_lines(table: list[tuple[str, Counter]]) -> list[str]:
    out = ["rule     tp   fp noise precision"]
    for code, counts in table:
        value = precision(counts)
        shown = f"{value:9.2f}" if value is not None else "        -"
        out.append(f"{code:7} {counts['tp']:4} {counts['fp']:4} {counts['noise']:5} {shown}")
    return out


def split_tables(comparison: Comparison, checked: set[str], unseen: set[str]) -> list[tuple[str, list[tuple[str, Counter]]]]:
    """Precision tables of every checked tree, of the seen trees and of the held-out (unseen) ones;
    only the first when no held-out tree was checked."""
    held_out = checked & unseen
    tables = [("all trees", precision_table(comparison))]
    if held_out:
        tables.append((f"seen trees ({len(checked - held_out)})", precision_table(comparison, checked - held_out)))
        tables.append((f"unseen trees, held out ({len(held_out)})", precision_table(comparison, held_out)))
    return tables


def format_report(
    comparison: Comparison, fixes: str, checked: set[str] = frozenset(), unseen: set[str] = frozenset(),
    parse_errors: ParseErrorCounts | None = None,
) -> str:
    """The human-readable summary printed by the script (with ``unseen`` trees among those
    ``checked``: the precision of the seen and of the held-out trees apart, after the overall one;
    then the TFD000 parse errors, which no table counts)."""
    out = []
    for title, table in split_tables(comparison, set(checked), set(unseen)):
        out += [f"== {title}", *_table_lines(table)]
    if parse_errors is not None:
        out.append(parse_errors.line())
    out.append(fixes)
    out.append(f"findings without a verdict: {len(comparison.new)}")
    for f in comparison.new:
        where = f"{f.path}" + (f":cell {f.cell}" if f.cell is not None else "")
        out.append(f"  NEW {f.repo} {where}:{f.line} {f.code} | {f.text}")
    out.append(f"verdicts whose finding vanished: {len(comparison.vanished)}")
    for e in comparison.vanished:
        where = f"{e['path']}" + (f":cell {e['cell']}" if e.get("cell") is not None else "")
        out.append(f"  GONE {e['repo']} {where}:{e['line']} {e['code']} [{e['verdict']}] {e['reason']}")
    return "\n".join(out)


def write_fix_diffs(spec: RepoSpec, tree: Path, out_dir: Path) -> Path:
    """``fix --diff --unsafe-fixes`` on the tree (which is already a copy), saved for reading."""
    result = _distfix(["fix", "--diff", "--unsafe-fixes", "--exit-zero", "."], tree)
    # Exit 2 with a diff: some file could not be parsed (its error is kept below the diff).
    if result.returncode not in (0, 2) or "Usage:" in result.stderr:
        raise RuntimeError(f"distfix fix failed on {spec.name} (exit {result.returncode}): {result.stderr.strip()}")
    target = out_dir / f"{spec.slug}.diff"
    target.write_text(result.stdout + (f"\n# stderr:\n{result.stderr}" if result.stderr.strip() else ""))
    return target


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, default=HERE / "wild-repos.toml")
    parser.add_argument("--ledger", type=Path, default=HERE / "wild-verdicts.jsonl")
    parser.add_argument(
        "--mirrors", type=Path, default=Path(os.environ.get(MIRRORS_ENV, DEFAULT_MIRRORS)),
        help=f"folder of git mirrors <owner>+<name>/repo (env {MIRRORS_ENV}, default {DEFAULT_MIRRORS})",
    )
    parser.add_argument("--work", type=Path, help="where to materialise the trees (default: a temporary folder)")
    parser.add_argument("--only", action="append", help="check only this owner/name (repeatable)")
    parser.add_argument("--seen-only", action="store_true",
                        help="leave out the held-out trees (unseen = true): for whoever is changing rules")
    parser.add_argument("--select", action="append", default=[], help="rule codes or prefixes, as for check")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a finding has no verdict")
    parser.add_argument("--emit-new", type=Path, help="append ledger stubs for findings without a verdict")
    parser.add_argument("--target-version", help="check with `--target-version X.Y` (upgrade findings; verdicts with that `target`)")
    parser.add_argument("--fix-diffs", type=Path, help="write `fix --diff --unsafe-fixes` of each tree here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Materialise, check, compare, report."""
    args = _arguments(argv)
    specs = [s for s in load_repos(args.repos) if (not args.only or s.name in args.only) and not (args.seen_only and s.unseen)]
    work = args.work or Path(tempfile.mkdtemp(prefix="distfix-wild-"))
    findings: list[WildFinding] = []
    checked: set[str] = set()
    parse_errors = ParseErrorCounts()
    try:
        for spec in specs:
            git_dir = mirror_git_dir(args.mirrors, spec)
            if git_dir is None:
                print(f"skip {spec.name}: no mirror at {args.mirrors / spec.slug} (fetch github:{spec.name})")
                continue
            if _git(git_dir, "cat-file", "-e", f"{spec.commit}^{{commit}}").returncode != 0:
                print(f"skip {spec.name}: commit {spec.commit} is not in {git_dir}")
                continue
            tree = work / spec.slug
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir(parents=True)
            missing = materialise(spec, git_dir, tree)
            if missing:
                print(f"note {spec.name}: {len(missing)} file(s) absent from the mirror: {', '.join(missing[:5])}")
            found = check_tree(spec.name, tree, args.select, args.target_version)
            print(f"{spec.name}: {len(found)} finding(s)")
            findings.extend(found)
            checked.add(spec.name)
            parse_errors += count_parse_errors(found, tree)  # while the tree is on disk
            if args.fix_diffs:
                args.fix_diffs.mkdir(parents=True, exist_ok=True)
                print(f"  diff written to {write_fix_diffs(spec, tree, args.fix_diffs)}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    comparison = compare(findings, load_ledger(args.ledger, args.target_version), repos=checked)
    unseen = {spec.name for spec in specs if spec.unseen}
    print(format_report(comparison, fix_counts(findings, comparison), checked, unseen, parse_errors))
    if args.emit_new and comparison.new:
        with args.emit_new.open("a", encoding="utf-8") as stream:
            for finding in comparison.new:
                stream.write(json.dumps(ledger_stub(finding, args.target_version)) + "\n")
    return 1 if args.strict and comparison.new else 0


if __name__ == "__main__":
    sys.exit(main())
