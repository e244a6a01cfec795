"""Build the real-code benchmark tree: the .py files of four TensorFlow repositories.

The repositories and commits are listed in ``real-tree.toml`` (or another manifest of the same
form, such as ``heavy-tree.toml``, whose ``patterns`` also take notebooks). Clone them yourself (any clone
holding the recorded commit works, bare or not) and point ``--clones`` at the folder that holds
them, as ``DIR/<name>``, ``DIR/<name>.git`` or ``DIR/<owner>+<name>/repo``; nothing is fetched
from the network. A missing clone or commit is reported and the tree is not built.

    python benchmarks/real_tree.py --clones ~/src --out /tmp/real-tree
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

MANIFEST = Path(__file__).resolve().parent / "real-tree.toml"


@dataclass(frozen=True)
class Repository:
    """One repository of the tree at its recorded commit."""

    name: str  # owner/name
    commit: str

    @property
    def short(self) -> str:
        return self.name.split("/")[1]


class MissingClone(Exception):
    """A recorded repository or commit is not available locally."""


def _manifest(manifest: Path) -> dict:
    with open(manifest, "rb") as handle:
        return tomllib.load(handle)


def repositories(manifest: Path = MANIFEST) -> list[Repository]:
    """The repositories listed in the manifest."""
    return [Repository(entry["name"], entry["commit"]) for entry in _manifest(manifest)["repository"]]


def patterns(manifest: Path = MANIFEST) -> tuple[str, ...]:
    """The file patterns the manifest's tree holds (``*.py`` unless it says otherwise)."""
    return tuple(_manifest(manifest).get("patterns", ["*.py"]))


def _git_dir(clones: Path, repo: Repository) -> Path:
    owner_plus_name = repo.name.replace("/", "+")
    for candidate in (clones / repo.short, clones / f"{repo.short}.git", clones / owner_plus_name / "repo"):
        if candidate.is_dir():
            dot_git = candidate / ".git"
            return dot_git if dot_git.exists() else candidate
    raise MissingClone(f"no clone of {repo.name} under {clones} (looked for {repo.short}, {repo.short}.git, {owner_plus_name}/repo)")


def _python_files(git_dir: Path, commit: str, wanted: tuple[str, ...] = ("*.py",)) -> bytes:
    archive = subprocess.run(
        # A pathspec that matches nothing fails the archive (a tree without notebooks): with
        # several patterns, take the whole tree and let the caller keep the files it wants.
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, *(["--", *wanted] if len(wanted) == 1 else [])],
        capture_output=True,
    )
    if archive.returncode != 0:
        raise MissingClone(f"{git_dir}: commit {commit} unavailable: {archive.stderr.decode(errors='replace').strip()}")
    return archive.stdout


def build(clones: Path, out: Path, manifest: Path = MANIFEST) -> tuple[int, int]:
    """Extract every repository's .py files (and notebooks, when the manifest says so) into
    ``out/<name>``; returns (files, lines)."""
    files = lines = 0
    wanted = patterns(manifest)
    suffixes = tuple(pattern.lstrip("*") for pattern in wanted)
    for repo in repositories(manifest):
        data = _python_files(_git_dir(clones, repo), repo.commit, wanted)
        target = out / repo.short
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                if not member.isfile() or not member.name.endswith(suffixes):
                    continue
                content = archive.extractfile(member).read()  # type: ignore[union-attr]
                destination = target / member.name
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(content)
                files += 1
                lines += content.count(b"\n")
    return files, lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", type=Path, required=True, help="folder holding the clones")
    parser.add_argument("--out", type=Path, required=True, help="where to write the tree (must not exist)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="the repositories (default: real-tree.toml)")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists; remove it or choose another --out")
    try:
        files, lines = build(args.clones, args.out, args.manifest)
    except MissingClone as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: {files} files, {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
