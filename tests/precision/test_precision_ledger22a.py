"""Regression tests for issue 28 (ledger22a): calls before a device setup that leave the runtime unstarted.

A numeric-check switch and TF 2.1-2.3's experimental mixed-precision names are configuration, as
benchmarks/probe_ledger22a_premises.py measured; a tensor made at the same place is the control.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

_NUMERIC_CHECKS_FIRST = """
    import tensorflow as tf

    def make_strategy(debug):
        if debug:
            {before}
        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        return tf.distribute.MultiWorkerMirroredStrategy()
    """

_MIXED_PRECISION_FIRST = """
    import tensorflow as tf
    from tensorflow.keras.mixed_precision import experimental as precision

    def make_strategy(half):
        if half:
            {before}
        for gpu in tf.config.list_physical_devices("GPU"):
            try:
                tf.config.experimental.set_memory_growth(gpu, True)
            except RuntimeError:
                pass
        return tf.distribute.MirroredStrategy()
    """


def _codes(template: str, before: str) -> list[str]:
    return codes_of(textwrap.dedent(template).replace("{before}", before))


def test_enable_check_numerics_does_not_start_the_runtime() -> None:
    codes = _codes(_NUMERIC_CHECKS_FIRST, "tf.debugging.enable_check_numerics()")
    assert "TFD111" not in codes and "TFD105" not in codes


def test_a_tensor_before_the_device_setup_still_reported() -> None:
    codes = _codes(_NUMERIC_CHECKS_FIRST, "tf.constant(0.0)")
    assert "TFD111" in codes and "TFD105" in codes


def test_experimental_mixed_precision_policy_is_configuration() -> None:
    codes = _codes(_MIXED_PRECISION_FIRST, "precision.set_policy(precision.Policy('mixed_float16'))")
    assert "TFD111" not in codes


def test_a_variable_before_the_memory_growth_still_reported() -> None:
    assert "TFD111" in _codes(_MIXED_PRECISION_FIRST, "tf.Variable(1.0)")
