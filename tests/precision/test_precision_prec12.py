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


# A preprocessing model (a tokenizer, a normaliser) made outside the scope for the input pipeline.
_PREPROCESSOR = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    raw = tf.keras.Input(shape=(4,))
    preprocessor = tf.keras.Model(raw, tf.keras.layers.Rescaling(1 / 255)(raw))
    examples = tf.data.Dataset.from_tensor_slices((tf.ones((8, 4)), tf.ones((8, 1)))).batch(4)
    {helper}
    with strategy.scope():
        {pipeline}
        model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
        model.compile("adam", "mse")
    model.fit(train)
    """


def _preprocessing(pipeline: str, helper: str = "") -> str:
    return textwrap.dedent(_PREPROCESSOR).format(pipeline=pipeline, helper=textwrap.dedent(helper).strip())


_LOADER = """
def load(data, prep):
    return data.map(lambda x, y: (prep(x), y))
"""


def test_a_model_used_only_as_the_input_pipelines_map_function_is_not_distributed_state():
    assert "TFD101" not in codes_of(_preprocessing("train = examples.map(lambda x, y: (preprocessor(x), y))"))
    # Passed to a helper of the file that uses it only in its map function.
    assert "TFD101" not in codes_of(_preprocessing("train = load(examples, preprocessor)", _LOADER))
    # A def handed to map by name.
    mapped = "def prep(x, y):\n    return preprocessor(x), y\n"
    assert "TFD101" not in codes_of(_preprocessing("train = examples.map(prep)", mapped))


def test_a_model_the_helper_also_trains_stays_reported():
    # Control: the helper trains the model it is given, in the scope.
    trains = """
    def load(data, prep):
        prep.compile("adam", "mse")
        prep.fit(data)
        return data.map(lambda x, y: (prep(x), y))
    """
    assert "TFD101" in codes_of(_preprocessing("train = load(examples, preprocessor)", trains))
    # Control: the model is called in the scope itself, not in the pipeline.
    assert "TFD101" in codes_of(_preprocessing("train = examples\n    preprocessor.compile('adam', 'mse')"))
