"""Regression tests for issue 28 (prec21): shapes seen in public code, in our own words.

TFD101 in a notebook's model classes and on metrics of a custom loop, TFD101's rewrite where the
strategy may be None, TFD201 on a batch already split per replica, TFD106 on a `predict` that is
not Keras's. Each test has a control that keeps the finding where it is right.
"""

from __future__ import annotations

from checked_codes import codes_of

# A Python generator gives whole batches; a first `strategy.run` picks each replica's row.
_SPLIT_THEN_RUN = """
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def batches():
        for start in range(0, 64, 8):
            yield np.arange(start, start + 8)

    def predict_step(rows):
        return rows * 2

    for rows in batches():
        rows = tf.constant(rows)
{rebind}
        outputs = strategy.run(predict_step, args=(rows,))
    """

_PICK_ROW = """
        @tf.function
        def pick():
            context = tf.distribute.get_replica_context()
            return rows[context.replica_id_in_sync_group]

        rows = strategy.run(pick)"""


def test_a_name_rebound_to_a_run_result_holds_per_replica_values():
    assert "TFD201" not in codes_of(_SPLIT_THEN_RUN.format(rebind=_PICK_ROW))


def test_a_whole_generator_batch_handed_to_run_stays_reported():
    # Control: without the splitting run, every replica gets the whole batch.
    assert "TFD201" in codes_of(_SPLIT_THEN_RUN.format(rebind=""))
