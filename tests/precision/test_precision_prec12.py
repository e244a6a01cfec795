"""Regression tests for issue 28 (prec12): shapes seen in public code, in our own words.

Each test is a minimal program of the kind real code has and says why the finding is wrong there,
with a control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

# Two reproductions of one bug report pasted into one file: each starts again with its imports and
# creates its multi-worker strategy first. The second strategy runs in its own process: the first
# program's training did not start that process's runtime.
_PROGRAM = """
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    {before_model}
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
        model.compile("adam", "mse")
    model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1)
    """


def _pasted(second_before_strategy: str = "") -> str:
    first = textwrap.dedent(_PROGRAM.format(before_model=""))
    second = textwrap.dedent(_PROGRAM.format(before_model=""))
    if second_before_strategy:
        second = second.replace("strategy = ", second_before_strategy + "\nstrategy = ", 1)
    return first + "\n" + second


def test_a_strategy_in_a_second_pasted_program_is_not_after_the_first_programs_ops():
    assert "TFD105" not in codes_of(_pasted())


def test_ops_of_the_strategys_own_program_still_count():
    # Control: the second program itself runs an op before its strategy.
    assert "TFD105" in codes_of(_pasted("scale = tf.constant(2.0)"))
    # Control: one program that trains and then creates another strategy.
    single = (
        textwrap.dedent(_PROGRAM.format(before_model="")) + "\nagain = tf.distribute.MultiWorkerMirroredStrategy()\n"
    )
    assert "TFD105" in codes_of(single)


def test_a_strategy_made_in_a_function_of_the_second_program():
    # The function is defined and called in the second program; the first program's ops do not count.
    second = textwrap.dedent(
        """
        import tensorflow as tf

        def make():
            return tf.distribute.MultiWorkerMirroredStrategy()

        strategy = make()
        """
    )
    assert "TFD105" not in codes_of(textwrap.dedent(_PROGRAM.format(before_model="")) + "\n" + second)
