"""TFD401 on TF 1's `strategy.experimental_run(fn, ...)`: the advice depends on what the second argument is.

Given an iterator, TF 2's form is `strategy.run(fn, args=(next(iterator),))`. Given an element already
(`next(it)`, `it.get_next()`, or a name bound to one), `experimental_run` calls `get_next()` on it and fails
on every TF 2; the call that works passes the element's parts when `fn` takes them
(benchmarks/probe_ledger10a_premises.py measures all three calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

HEAD = """\
import tensorflow as tf

strategy = tf.distribute.TPUStrategy(resolver)
data_iter = iter(strategy.experimental_distribute_dataset(dataset))

def train_step_fn(images, labels):
    return images, labels

def whole_batch_fn(batch):
    return batch

"""


def message(tmp_path: Path, body: str) -> str:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "requirements.txt").write_text("tensorflow==2.15.0\n")
    found = [f for f in check_source(str(tmp_path / "train.py"), HEAD + body, Config()).findings if f.code == "TFD401"]
    assert len(found) == 1, found
    assert found[0].fix is None, "advice, no edit"
    assert len(found[0].message) <= 200
    return found[0].message


@pytest.mark.parametrize(
    "body",
    [
        "@tf.function\ndef step():\n    return strategy.experimental_run(train_step_fn, next(data_iter))\n",
        "batch = next(data_iter)\nout = strategy.experimental_run(train_step_fn, batch)\n",
        "out = strategy.experimental_run(train_step_fn, input_iterator=next(data_iter))\n",
    ],
    ids=["next-call", "name-bound-to-next", "keyword"],
)
def test_an_element_given_to_a_two_parameter_fn_gets_args_of_the_element(tmp_path, body):
    text = message(tmp_path, body)
    assert "fails on every TF 2" in text
    assert "args=next(data_iter)" in text or "args=batch" in text
    assert "args=(next(data_iter),)" not in text and "args=(batch,)" not in text


def test_get_next_is_an_element_too(tmp_path):
    text = message(tmp_path, "out = strategy.experimental_run(train_step_fn, data_iter.get_next())\n")
    assert "`strategy.run(train_step_fn, args=data_iter.get_next())`" in text


def test_an_element_given_to_a_one_parameter_fn_is_passed_whole(tmp_path):
    text = message(tmp_path, "out = strategy.experimental_run(whole_batch_fn, next(data_iter))\n")
    assert "`strategy.run(whole_batch_fn, args=(next(data_iter),))`" in text


def test_an_fn_the_file_does_not_define_gets_both_forms(tmp_path):
    text = message(tmp_path, "out = strategy.experimental_run(imported_step, next(data_iter))\n")
    assert "args=next(data_iter)" in text and "args=(next(data_iter),)" in text


def test_an_iterator_keeps_the_iterator_advice(tmp_path):
    """The control: an iterator is what `experimental_run` takes; the TF 2 form wraps `next(iterator)`."""
    text = message(tmp_path, "out = strategy.experimental_run(train_step_fn, data_iter)\n")
    advice = "use `strategy.run(fn, args=(next(iterator),))`"
    assert text == f"`experimental_run` is a TensorFlow 1 strategy method; {advice}"
