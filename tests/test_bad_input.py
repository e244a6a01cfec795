"""Bad input gets a one-line message and never a traceback; the other files go on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from read_only_folders import read_only

GOOD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\nd = s.experimental_distribute_datasets_from_function(f)\n"


def _assert_one_line_error(result, path_fragment: str, message: str) -> None:
    assert "Traceback" not in result.stdout + result.stderr
    lines = [line for line in (result.stdout + result.stderr).splitlines() if path_fragment in line and message in line]
    assert len(lines) == 1, result.stdout + result.stderr


def _check_with_good(tmp_path: Path, distfix, bad: Path):
    good = tmp_path / "good.py"
    good.write_text(GOOD)
    result = distfix("check", str(bad), str(good))
    assert result.returncode == 2
    assert f"{good}:3:7: TFD401" in result.stdout, "the other file still gets checked"
    return result


def test_syntax_error_is_a_tfd000_finding_with_location(tmp_path, distfix):
    bad = tmp_path / "broken.py"
    bad.write_text("import tensorflow as tf\nstrategy.experimental_run_v2(fn\n\ndef f(:\n    pass\n")
    result = _check_with_good(tmp_path, distfix, bad)
    _assert_one_line_error(result, "broken.py:", "TFD000 syntax error")
    # The location and wording are Python's own (libcst's native parser is often a line off).
    assert f"{bad}:4:1: TFD000 syntax error: invalid syntax" in result.stdout


def test_syntax_error_is_reported_whatever_is_selected(tmp_path, distfix):
    bad = tmp_path / "broken.py"
    bad.write_text("import tensorflow as tf\ns = tf.distribute.MirroredStrategy(\n")
    result = distfix("check", "--select", "TFD1", "--format", "json", str(bad))
    assert result.returncode == 2
    assert [f["code"] for f in json.loads(result.stdout)] == ["TFD000"]


def test_selecting_tfd000_alone_lists_what_a_full_run_cannot_parse(tmp_path, distfix):
    (tmp_path / "broken.py").write_text("import tensorflow as tf\ns = tf.distribute.MirroredStrategy(\n")
    (tmp_path / "plain.py").write_text("x = (\n")  # nothing a rule looks for: a full run does not parse it
    (tmp_path / "good.py").write_text(GOOD)

    def parse_errors(*options: str) -> list[str]:
        result = distfix("check", *options, "--format", "json", str(tmp_path))
        return sorted(Path(f["path"]).name for f in json.loads(result.stdout) if f["code"] == "TFD000")

    assert parse_errors() == ["broken.py"]
    assert parse_errors("--select", "TFD000") == ["broken.py"]
    assert parse_errors("--select", "TFD000,TFD105") == ["broken.py"]


@pytest.mark.parametrize("depth", [500, 5000])
def test_deeply_nested_file_is_one_line_and_the_others_go_on(tmp_path, distfix, depth):
    bad = tmp_path / "nested.py"
    bad.write_text("import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\nx = " + "[" * depth + "]" * depth + "\n")
    result = _check_with_good(tmp_path, distfix, bad)
    _assert_one_line_error(result, "nested.py:", "TFD000")


def test_syntax_error_file_is_never_written(tmp_path, distfix):
    bad = tmp_path / "broken.py"
    text = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f\n"
    bad.write_text(text)
    result = distfix("fix", "--write", str(bad))
    assert result.returncode == 2
    assert bad.read_text() == text


def test_latin1_file_with_coding_cookie_is_fixed_in_its_encoding(tmp_path, distfix):
    source = "# -*- coding: latin-1 -*-\n# Modèle réparti\n" + GOOD
    bad = tmp_path / "latin.py"
    bad.write_bytes(source.encode("latin-1"))
    result = distfix("fix", "--write", str(bad))
    assert result.returncode == 0, result.stderr
    data = bad.read_bytes()
    assert data.decode("latin-1") == source.replace("experimental_distribute_datasets_from_function", "distribute_datasets_from_function")
    assert "Modèle".encode("latin-1") in data


def test_invalid_utf8_without_cookie_gets_one_line(tmp_path, distfix):
    bad = tmp_path / "bytes.py"
    bad.write_bytes(b"import tensorflow as tf\nname = '\xff\xfe'\nstrategy.experimental_run_v2(f)\n")
    result = _check_with_good(tmp_path, distfix, bad)
    _assert_one_line_error(result, "bytes.py", "not valid utf-8 at byte")


def test_bom_and_crlf_survive_write_byte_for_byte(tmp_path, distfix):
    original = GOOD.replace("\n", "\r\n").encode("utf-8")
    bad = tmp_path / "windows.py"
    bad.write_bytes(b"\xef\xbb\xbf" + original)
    result = distfix("fix", "--write", str(bad))
    assert result.returncode == 0, result.stderr
    expected = b"\xef\xbb\xbf" + original.replace(b"experimental_distribute_datasets_from_function", b"distribute_datasets_from_function")
    assert bad.read_bytes() == expected


def test_binary_file_named_py(tmp_path, distfix):
    bad = tmp_path / "blob.py"
    bad.write_bytes(bytes(range(256)) * 4)
    result = _check_with_good(tmp_path, distfix, bad)
    _assert_one_line_error(result, "blob.py", "binary file")


def test_empty_file_is_clean(tmp_path, distfix):
    empty = tmp_path / "empty.py"
    empty.write_text("")
    result = distfix("check", str(empty))
    assert result.returncode == 0
    assert "All checks passed" in result.stdout


def test_missing_path(tmp_path, distfix):
    result = _check_with_good(tmp_path, distfix, tmp_path / "nope.py")
    _assert_one_line_error(result, "nope.py", "no such file or directory")


def test_directory_named_like_a_script_is_walked(tmp_path, distfix):
    folder = tmp_path / "pkg.py"
    folder.mkdir()
    (folder / "inner.py").write_text(GOOD)
    result = distfix("check", str(folder))
    assert result.returncode == 1
    assert "inner.py:3:7: TFD401" in result.stdout


def test_symlink_loop_is_reported_and_walks_terminate(tmp_path, distfix):
    loop = tmp_path / "loop.py"
    os.symlink(loop, loop)  # a link to itself: resolving it loops
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path, tmp_path / "sub" / "back")  # a folder loop inside a walked tree
    (tmp_path / "good.py").write_text(GOOD)
    result = distfix("check", str(loop), str(tmp_path))
    assert result.returncode == 2
    _assert_one_line_error(result, "loop.py", "")
    assert "good.py:3:7: TFD401" in result.stdout


def test_huge_file_gets_one_line(tmp_path, distfix):
    bad = tmp_path / "huge.py"
    line = "x = 'tf.distribute.MirroredStrategy'  # padding padding padding padding\n"
    bad.write_text(line * (20_000_000 // len(line)))
    result = _check_with_good(tmp_path, distfix, bad)
    _assert_one_line_error(result, "huge.py", "file too large")


def test_unreadable_pyproject_is_a_clear_error(tmp_path, distfix):
    (tmp_path / "pyproject.toml").write_text("[tool.distfix]\nselect = 'TFD'\n")
    (tmp_path / "a.py").write_text(GOOD)
    result = distfix("check", "a.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "select must be a list of strings" in result.stderr
    assert "Traceback" not in result.stderr


def test_write_through_a_symlink_changes_the_target_and_keeps_the_link(tmp_path, distfix):
    real = tmp_path / "real.py"
    real.write_text(GOOD)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    result = distfix("fix", "--write", str(link))
    assert result.returncode == 0, result.stdout + result.stderr
    assert link.is_symlink()
    assert "distribute_datasets_from_function(f)" in real.read_text() and "experimental_" not in real.read_text()


@pytest.mark.parametrize("name", ["train.py", "train.ipynb"])
def test_a_file_that_cannot_be_written_gets_one_line(tmp_path, distfix, name):
    folder = tmp_path / "ro"
    folder.mkdir()
    source = GOOD
    if name.endswith(".ipynb"):
        cell = {"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [], "source": GOOD}
        source = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    (folder / name).write_text(source)
    with read_only(folder):
        result = distfix("fix", "--write", str(folder / name))
    assert result.returncode == 2
    _assert_one_line_error(result, name, "could not write: ")
    assert (folder / name).read_text() == source
