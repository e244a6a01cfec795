"""The Keras-2 build check leaves out the definitions that call no `Input` without changing its answer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixer.tf.keras2_builds import _scopes, keras2_build

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
IMPORTS = {"tf": "tensorflow", "keras": "tensorflow.keras", "In": "tensorflow.keras.layers.Input"}

MANY_METHODS = "import tensorflow as tf\nfrom tensorflow import keras\n\nclass T:\n" + "".join(
    f"    def test_{n}(self):\n        x = tf.constant({n})\n        return x + 1\n" for n in range(50)
)

CASES = [
    # The int shape inside one method of many.
    MANY_METHODS + "    def test_model(self):\n        n = 3\n        return keras.Input(shape=n)\n",
    # Under an alias: the call's name is not `Input`.
    MANY_METHODS + "    def test_alias(self):\n        return In(shape=4)\n",
    # The function's name on a later line than the call's start.
    MANY_METHODS + "    def test_chain(self):\n        return (keras.layers\n                .Input(shape=5))\n",
    # In a lambda inside a method, the lambda its own scope.
    MANY_METHODS + "    def test_lambda(self):\n        build = lambda: keras.Input(shape=6)\n        return build\n",
    # A module-level int used in a method; tf.shape of a symbolic tensor.
    "from tensorflow import keras\nimport tensorflow as tf\nW = 7\n"
    + MANY_METHODS.split("class T:\n", 1)[1].replace("    def", "def").replace("        ", "    ")
    + "def build():\n    x = keras.Input(shape=(3,))\n    return tf.shape(x)\n"
    + "def other():\n    return keras.Input(W)\n",
    # A full-width letter: Python reads `Ｉnput` as `Input`; non-ASCII text is walked whole.
    MANY_METHODS + "    def test_wide(self):\n        return keras.\uff29nput(shape=8)\n",
    # A lone carriage return ends a line for Python: such text is walked whole too.
    MANY_METHODS + "    def test_cr(self):\r        return keras.Input(shape=9)\n",
    # Nothing to find.
    MANY_METHODS + "    def test_tuple(self):\n        return keras.Input(shape=(3,))\n",
]


@pytest.mark.parametrize("text", CASES)
def test_the_answer_is_the_whole_walks(text: str) -> None:
    tree = ast.parse(text)
    assert keras2_build(tree, IMPORTS, text) == keras2_build(tree, IMPORTS)


def test_each_case_but_the_last_finds_its_construction() -> None:
    found = [keras2_build(ast.parse(text), IMPORTS, text) for text in CASES]
    assert all(found[:-1]) and found[-1] is None


def test_methods_without_input_are_not_walked() -> None:
    text = CASES[0]
    tree = ast.parse(text)
    every = _scopes(tree)
    kept = _scopes(tree, [text.count("\n", 0, text.index("keras.Input")) + 1])
    assert len(every) == 53 and len(kept) == 3  # the module, the class, the one method


def test_corpus_answers_unchanged() -> None:
    for path in sorted(CORPUS.rglob("*.py")):
        text = path.read_text()
        if "Input(" in text:
            tree = ast.parse(text)
            assert keras2_build(tree, IMPORTS, text) == keras2_build(tree, IMPORTS), path
