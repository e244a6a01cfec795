"""Notebooks: magics masked, findings per cell, only fixed cells rewritten, layout kept."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.magics import mask_cell
from fixer.notebook import analyse_notebook, combine_cells, load_notebook


def _notebook(cells: list[dict]) -> dict:
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _code(cell_id: str, source: list[str], outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 3,
        "id": cell_id,
        "metadata": {"tags": ["keep"]},
        "outputs": outputs or [],
        "source": source,
    }


CELLS = [
    {"cell_type": "markdown", "id": "md1", "metadata": {}, "source": ["# Training\n"]},
    _code("c1", ["%pip install tensorflow\n", "!nvidia-smi\n", "import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()"]),
    _code(
        "c2",
        ["%%time\n", "@tf.function\n", "def step(x):\n", "    return strategy.experimental_run_v2(fn, args=(x,))"],
        outputs=[{"name": "stdout", "output_type": "stream", "text": ["CPU times: 1 s\n"]}],
    ),
    _code("c3", ["%%bash\n", "echo experimental_run_v2 is not python here\n"]),
]


def _write(tmp_path: Path, data: dict, indent: int = 1) -> Path:
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_masking_keeps_line_lengths():
    masked, restored = mask_cell("%matplotlib inline\nx = 1\nfiles = !ls\n")
    assert masked == "#matplotlib inline\nx = 1\nfiles = !ls\n".replace("files = !ls", "#iles = !ls")
    assert [len(line) for line in masked.split("\n")] == [18, 5, 11, 0]
    assert restored["#matplotlib inline"] == "%matplotlib inline"


@pytest.mark.parametrize(
    "line",
    ["%matplotlib inline", "!nvidia-smi", "files = !ls", "t = %timeit f()", "!!ls", "obj?", "tf.distribute??",
     "?strategy", "??tf.distribute.MirroredStrategy", "  obj.attr? "],
)
def test_ipython_syntax_is_masked(line):
    masked, restored = mask_cell(f"x = 1\n{line}\ny = 2")
    assert masked.split("\n")[1].startswith("#") and len(masked.split("\n")[1]) == len(line)
    assert list(restored.values()) == [line]


@pytest.mark.parametrize(
    "source",
    [
        'def f():\n    """Why?\n!important, 100%\n    obj?\n    """',
        "strategy = tf.distribute.MirroredStrategy()  # which one?",
        "# why?\n# %not a magic",
        'print("what?")\ns = \'it?\'',
        "y = (a\n     % b)\nz = [\n    c\n    !=d]",
        "y = a \\\n    % b",
        "s = 'a \\\n!b'",
        "x = 'it''s'  # and?\ny = x",
    ],
)
def test_python_is_never_masked(source):
    assert mask_cell(source) == (source, {})


def test_masking_resumes_after_a_string_or_brackets_close():
    masked, _ = mask_cell('s = """\n!inside\n"""\n!outside\nf(a,\n  b)\nobj?')
    assert masked == 's = """\n!inside\n"""\n#outside\nf(a,\n  b)\n#bj?'


def test_question_marks_in_strings_and_comments_keep_the_code(tmp_path, distfix):
    cells = [
        _code("c1", ['"""Why?\n', "!this line is documentation\n", '"""\n', "import tensorflow as tf\n",
                     "strategy = tf.distribute.MirroredStrategy()  # which one?"]),
        _code("c2", ["tf.distribute?\n", "for _ in range(3):\n", "    strategy.experimental_run_v2(step)"]),
    ]
    path = _write(tmp_path, _notebook(cells))
    result = distfix("check", str(path))
    found = re.findall(r"^.*train\.ipynb:(cell \d+:\d+:\d+): (TFD\d+)", result.stdout, re.MULTILINE)
    # TFD402 needs `strategy` to be known: the line ending in "# which one?" was analysed.
    assert found == [("cell 2:3:5", "TFD402"), ("cell 2:3:14", "TFD401")], result.stdout
    assert distfix("fix", "--write", str(path)).returncode == 1, "TFD402 has no safe fix"
    written = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert written[0]["source"] == cells[0]["source"]
    assert written[1]["source"] == ["tf.distribute?\n", "for _ in range(3):\n", "    strategy.run(step)"]


def test_cells_are_analysed_together():
    notebook = load_notebook(json.dumps(_notebook(CELLS)))
    assert [cell.number for cell in notebook.cells] == [2, 3, 4]
    assert "strategy = tf.distribute.MirroredStrategy()" in notebook.combined


def test_check_reports_cell_line_and_column(tmp_path, distfix):
    path = _write(tmp_path, _notebook(CELLS))
    result = distfix("check", str(path))
    assert result.returncode == 1, result.stderr
    assert f"{path}:cell 3:4:21: TFD401 [*] `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`" in result.stdout
    assert "cell 4" not in result.stdout, "a %%bash cell is not Python"


def test_fix_write_changes_only_the_fixed_cell_and_keeps_layout(tmp_path, distfix):
    data = _notebook(CELLS)
    path = _write(tmp_path, data)
    result = distfix("fix", "--write", str(path))
    assert result.returncode == 0, result.stderr
    written = path.read_text(encoding="utf-8")
    expected = json.loads(json.dumps(data))
    expected["cells"][2]["source"] = [
        "%%time\n", "@tf.function\n", "def step(x):\n", "    return strategy.run(fn, args=(x,))"
    ]
    assert written == json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
    again = distfix("fix", "--write", str(path))
    assert again.returncode == 0 and path.read_text(encoding="utf-8") == written


def test_two_space_layout_is_kept(tmp_path, distfix):
    path = _write(tmp_path, _notebook(CELLS), indent=2)
    distfix("fix", "--write", str(path))
    assert path.read_text(encoding="utf-8").startswith('{\n  "cells": [')


def test_malformed_notebook_gets_one_line_and_others_go_on(tmp_path, distfix):
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": ["strategy = tf.distribute.MirroredStrategy()", ', encoding="utf-8")
    _write(tmp_path, _notebook(CELLS))
    result = distfix("check", str(tmp_path))
    assert result.returncode == 2
    assert "broken.ipynb:1:1: TFD000 malformed notebook: invalid JSON at line 1 column 59" in result.stdout
    assert "train.ipynb:cell 3:4:21: TFD401" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_fix_moving_a_cell_s_first_statement_keeps_every_cell(tmp_path, distfix):
    cells = [
        _code("c1", ["import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()\n", "with strategy.scope():\n", "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])"]),
        _code("c2", ["# the optimizer\n", "optimizer = tf.keras.optimizers.Adam()\n", "print(model)"]),
        _code(
            "c3",
            [
                "@tf.function\n",
                "def step(x, y):\n",
                "    def fn(x, y):\n",
                "        with tf.GradientTape() as tape:\n",
                "            loss = tf.nn.compute_average_loss(tf.square(model(x) - y))\n",
                "        grads = tape.gradient(loss, model.trainable_variables)\n",
                "        optimizer.apply_gradients(zip(grads, model.trainable_variables))\n",
                "    return strategy.run(fn, args=(x, y))",
            ],
        ),
    ]
    path = _write(tmp_path, _notebook(cells))
    result = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD101", str(path))
    assert "cross cell boundaries" not in result.stderr, result.stderr
    sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert sources[0].endswith("    # the optimizer\n    optimizer = tf.keras.optimizers.Adam()")
    assert sources[1] == "print(model)"
    assert sources[2] == "".join(cells[2]["source"])


@pytest.mark.parametrize(
    ("cell", "masked"),
    [
        ("pip install tensorflow-text\n", "#ip install tensorflow-text\n"),  # automagic: `%pip`
        ("\nls $DATA_DIR", "\n#s $DATA_DIR"),  # a default alias; leading blank lines do not count
        ("pip = 3\n", "pip = 3\n"),  # Python already: an assignment
        ("# install\npip install x\n", "# install\npip install x\n"),  # two lines: IPython fails too
        ("pip install x\n\n", "pip install x\n\n"),  # a second (blank) line: no automagic either
        ("install x\n", "install x\n"),  # not a magic
    ],
)
def test_a_one_line_cell_ipython_runs_by_automagic_is_masked_like_a_magic(cell, masked):
    assert mask_cell(cell)[0] == masked


def test_a_bare_pip_install_cell_is_no_parse_error():
    def codes(first: str) -> list[str]:
        cells = [_code("c1", [first]), _code("c2", ["import tensorflow as tf\n"])]
        result = analyse_notebook("lab.ipynb", json.dumps(_notebook(cells)), Config(), fix=False, unsafe=False)
        return [f.code for f in result.findings]

    assert codes("pip install tensorflow-text") == []
    assert codes("# install\npip install tensorflow-text") == ["TFD000"]  # IPython fails on it too


@pytest.mark.parametrize(
    "sources",
    [
        ["import tensorflow as tf\n", "x = tf.constant(1)"],  # parses: the tree is the combined text's
        ["x = 1 + \\", "2\n"],  # a continuation across cells: runs in one text, not with the marks
        ["def f():\n    pass  \\", "pass  \\", ""],  # the marks' lines end the continuation instead
        ["x = (\n", ")\n"],  # brackets across cells: both texts parse
        ["def f(:\n", "y = 2\n"],  # one cell does not parse: it is left out
    ],
)
def test_combining_decides_as_the_cells_joined_alone_and_keeps_a_true_tree(sources):
    # The combined text's tree (built once, reused by the check) stands for the plain join of the
    # masked cells unless a backslash continues a line: then the plain join decides, as it always did.
    notebook = combine_cells(list(enumerate(sources, start=1)))
    joined = "".join(mask_cell(source)[0] + "\n" for source in sources)
    try:
        ast.parse(joined)
        alone = True
    except SyntaxError:
        alone = False
    assert all(cell.error is None for cell in notebook.cells) == alone
    if notebook.tree is not None:
        assert ast.dump(notebook.tree) == ast.dump(ast.parse(notebook.combined))


def test_a_notebook_checked_with_its_tree_finds_what_a_fresh_parse_finds():
    cells = [_code("c1", ["import tensorflow as tf\n", "strategy = tf.distribute.MirroredStrategy()\n"]),
             _code("c2", ["model = tf.keras.Sequential()\n", "with strategy.scope():\n", "    model.compile()\n"])]
    notebook = load_notebook(json.dumps(_notebook(cells)))
    assert notebook.tree is not None
    given = check_source("lab.ipynb", notebook.combined, Config(), tree=notebook.tree)
    fresh = check_source("lab.ipynb", notebook.combined, Config())
    assert [(f.code, f.start) for f in given.findings] == [(f.code, f.start) for f in fresh.findings] != []


_MIRRORED = "strategy = tf.distribute.MirroredStrategy()\n"


def test_a_wrap_above_the_cell_s_own_strategy_is_not_offered(tmp_path, distfix):
    # ledger24a: an earlier cell made a strategy; this cell builds the model, then makes its own
    # strategy and compiles in its scope. A wrap above that line would enter the earlier cell's
    # strategy (or raise NameError in a fresh kernel).
    cells = [
        _code("c1", ["import tensorflow as tf\n", _MIRRORED, "print(strategy.num_replicas_in_sync)"]),
        _code(
            "c2",
            [
                "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n",
                "model.add(tf.keras.layers.Dense(2))\n",
                _MIRRORED,
                "with strategy.scope():\n",
                "    model.compile(loss='mse')\n",
                "    model.fit(x, y)",
            ],
        ),
    ]
    path = _write(tmp_path, _notebook(cells))
    result = distfix("check", "--select", "TFD101", str(path))
    assert "cell 2:1:9: TFD101" in result.stdout, result.stdout
    assert "`strategy` is bound again below where the fix would use it" in result.stdout
    # Control: with nothing between, the model moves into the cell's own scope block (after the
    # binding), which stays offered.
    del cells[1]["source"][1]
    _write(tmp_path, _notebook(cells))
    moved = distfix("fix", "--write", "--unsafe-fixes", "--select", "TFD101", str(path))
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][1]["source"]).startswith(
        _MIRRORED + "with strategy.scope():\n    model = tf.keras.Sequential("
    )


def test_a_fix_that_would_cross_cells_drops_alone(tmp_path, distfix):
    # ledger24a (petals): the model is built in one cell and compiled in the next; the scope
    # wrap around both cannot be written into cells. The rename in the first cell still applies.
    cells = [
        _code("c1", ["import tensorflow as tf\n", "strategy = tf.distribute.experimental.TPUStrategy(resolver)"]),
        _code("c2", ["model = tf.keras.Sequential([tf.keras.layers.Dense(1)])"]),
        _code("c3", ["model.compile(loss='mse')"]),
        _code("c4", ["model.fit(strategy.experimental_distribute_dataset(ds))"]),
    ]
    path = _write(tmp_path, _notebook(cells))
    result = distfix("fix", "--write", "--unsafe-fixes", str(path))
    assert "cross cell boundaries" not in result.stderr, result.stderr
    sources = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]
    assert sources[0].endswith("strategy = tf.distribute.TPUStrategy(resolver)")
    assert sources[1:] == ["".join(c["source"]) for c in cells[1:]]
