"""Large files cost bounded time and memory: a file above MAX_ANALYSED_CHARS is refused before
any parse, one above MAX_SYNTAX_NODES before libcst builds its tree (which costs about 3.7 KB
per node), each as a per-file TFD000 while the other files are checked."""

from __future__ import annotations

from fixer.engine import MAX_ANALYSED_CHARS, MAX_SYNTAX_NODES, check_source

PRELUDE = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\n"
GOOD = PRELUDE + "d = s.experimental_distribute_datasets_from_function(f)\n"


def one_line_list(elements: int) -> str:
    """A valid file whose third line is a list of ``elements`` ones (one syntax node each)."""
    return PRELUDE + "x = [" + ", ".join(["1"] * elements) + "]\n"


def test_a_5_mb_line_is_refused_before_parsing(tmp_path, distfix):
    """Measured on main before the cap: past 200 s and 7.2 GB (killed), now a second or two."""
    (tmp_path / "line.py").write_text(one_line_list(5_000_000 // 3))
    (tmp_path / "good.py").write_text(GOOD)
    result = distfix("check", "--no-cache", str(tmp_path), timeout=600)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{tmp_path / 'line.py'}:1:1: TFD000 too large to analyse (5.0 million characters; the limit is 2 million)" in result.stdout
    assert f"{tmp_path / 'good.py'}:3:" in result.stdout


def test_a_file_past_the_node_limit_is_a_per_file_error():
    text = one_line_list(MAX_SYNTAX_NODES)
    assert len(text) < MAX_ANALYSED_CHARS  # the node count, not the size, refuses it
    result = check_source("dense.py", text)
    assert result.error is not None and result.error.startswith("too large to analyse: ")
    assert f"syntax nodes (the limit is {MAX_SYNTAX_NODES:,})" in result.error


def test_a_file_below_the_limits_is_analysed():
    result = check_source("ok.py", GOOD + "x = [" + ", ".join(["1"] * 1000) + "]\n")
    assert result.error is None and [f.code for f in result.findings] == ["TFD401"]
