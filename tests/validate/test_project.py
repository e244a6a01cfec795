"""How the validator finds a script's project and runs it the way its README does (no TensorFlow here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixer.validate.project import (
    ProjectError,
    default_cwd,
    find_root,
    load_project_config,
    module_file,
    resolve_entry,
)
from fixer.validate.runner import RunSpec, prepare, worker_settings


def _project(tmp_path: Path) -> Path:
    """A repository: ``trainer/task.py`` imports its own package and a sibling reached by a relative symlink."""
    root = tmp_path / "repo"
    (root / "trainer").mkdir(parents=True)
    (root / "common").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (root / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "model.py").write_text("UNITS = 1\n")
    (root / "common" / "layers.py").write_text("SCALE = 2.0\n")
    os.symlink("../common/layers.py", root / "trainer" / "layers.py")
    (root / "trainer" / "task.py").write_text("import argparse\nfrom trainer import model\nfrom trainer.layers import SCALE\n")
    return root


def test_the_root_is_the_nearest_project_marker(tmp_path: Path):
    root = _project(tmp_path)
    assert find_root(root / "trainer") == root
    lone = tmp_path / "lone"
    lone.mkdir()
    assert find_root(lone) == lone or find_root(lone) in lone.parents


def test_a_script_importing_its_own_package_runs_from_the_root(tmp_path: Path):
    root = _project(tmp_path)
    task = root / "trainer" / "task.py"
    assert default_cwd(task, task.read_text(), root) == root
    alone = root / "scripts" / "plot.py"
    alone.parent.mkdir()
    alone.write_text("import numpy\n")
    assert default_cwd(alone, alone.read_text(), root) == alone.parent


def test_module_files_are_found_like_python_dash_m(tmp_path: Path):
    root = _project(tmp_path)
    assert module_file("trainer.task", [root]) == (root / "trainer" / "task.py").resolve()
    (root / "trainer" / "__main__.py").write_text("")
    assert module_file("trainer", [root]) == (root / "trainer" / "__main__.py").resolve()
    with pytest.raises(ProjectError, match="no module `trainer.nope`"):
        module_file("trainer.nope", [root])
    with pytest.raises(ProjectError, match="not a module name"):
        module_file("trainer/task.py", [root])


def test_entry_from_the_command_line(tmp_path: Path):
    root = _project(tmp_path)
    entry = resolve_entry(root / "trainer" / "task.py", args=("--epochs", "2"))
    assert (entry.root, entry.cwd, entry.module, entry.args) == (root, root, None, ("--epochs", "2"))
    assert entry.command() == f"cd {root} && python trainer/task.py --epochs 2"
    by_module = resolve_entry(None, "trainer.task", ("--epochs", "1"), cwd=root)
    assert by_module.script == (root / "trainer" / "task.py").resolve() and by_module.cwd == root
    assert by_module.command() == f"cd {root} && python -m trainer.task --epochs 1"
    with pytest.raises(ProjectError, match="no such file"):
        resolve_entry(root / "missing.py")
    with pytest.raises(ProjectError, match="no such folder"):
        resolve_entry(root / "trainer" / "task.py", cwd=root / "nowhere")


def test_entry_from_pyproject(tmp_path: Path):
    root = _project(tmp_path)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.distfix.validate]\nmodule = "trainer.task"\nargs = ["--epochs", "3"]\n'
        'env = { DATA_DIR = "data" }\n'
    )
    entry = resolve_entry(None, start=root / "trainer")
    assert (entry.module, entry.args, entry.env, entry.cwd) == ("trainer.task", ("--epochs", "3"), {"DATA_DIR": "data"}, root)
    assert entry.command() == f"cd {root} && DATA_DIR=data python -m trainer.task --epochs 3"
    # The module's file given as a script runs as the configured module.
    as_file = resolve_entry(root / "trainer" / "task.py")
    assert (as_file.module, as_file.args) == ("trainer.task", ("--epochs", "3"))
    # The command line's arguments win; the configured ones belong to the entry point they name.
    assert resolve_entry(None, "trainer.task", ("--epochs", "1"), cwd=root).args == ("--epochs", "1")
    other = root / "trainer" / "other.py"
    other.write_text("")
    assert resolve_entry(other).args == () and resolve_entry(other).env == {"DATA_DIR": "data"}


@pytest.mark.parametrize(
    "table, message",
    [
        ('script = 3', "script must be a string"),
        ('args = "--epochs 3"', "args must be a list of strings"),
        ('entry = "x"', "unknown key"),
        ('script = "a.py"\nmodule = "a"', "not both"),
        ('env = { A = 1 }', "env must map names to strings"),
    ],
)
def test_bad_configuration_is_one_clear_line(tmp_path: Path, table: str, message: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.distfix.validate]\n{table}\n")
    with pytest.raises(ProjectError, match=message):
        load_project_config(tmp_path)


def test_the_copy_keeps_the_project_and_its_relative_symlinks(tmp_path: Path):
    root = _project(tmp_path)
    entry = resolve_entry(root / "trainer" / "task.py", args=("--epochs", "2"))
    prepared = prepare(entry.script, "print('variant')\n", tmp_path / "run", entry)
    assert prepared.script == prepared.root / "trainer" / "task.py" and prepared.cwd == prepared.root
    assert prepared.script.read_text() == "print('variant')\n"
    sibling = prepared.root / "trainer" / "layers.py"
    assert sibling.is_symlink() and os.readlink(sibling) == "../common/layers.py" and sibling.read_text() == "SCALE = 2.0\n"
    assert (root / "trainer" / "task.py").read_text().startswith("import argparse")  # the project is untouched
    settings = worker_settings(RunSpec(entry=entry), None, None)
    assert settings["args"] == ["--epochs", "2"] and settings["module"] is None


def test_a_symlinked_script_is_replaced_not_written_through(tmp_path: Path):
    root = _project(tmp_path)
    os.symlink("layers.py", root / "common" / "entry.py")
    entry = resolve_entry(root / "common" / "entry.py")
    prepared = prepare(root / "common" / "entry.py", "X = 1\n", tmp_path / "run", entry)
    assert prepared.script.read_text() == "X = 1\n"
    assert (prepared.root / "common" / "layers.py").read_text() == "SCALE = 2.0\n"


def test_the_validate_table_does_not_upset_the_checker_configuration(tmp_path: Path):
    from fixer.config import load_config

    (tmp_path / "pyproject.toml").write_text('[tool.distfix]\nselect = ["TFD1"]\n\n[tool.distfix.validate]\nscript = "train.py"\n')
    assert load_config(tmp_path).select == ("TFD1",)
