"""When TF_CONFIG is final relative to the strategy: TFD605 (set after the strategy was created) and
TFD105's single-worker exception (TF_CONFIG removed, unless it is set again before the strategy)."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def codes(source: str, code: str, path: str = "train.py") -> list[int]:
    """The lines of ``code``'s findings on ``source``."""
    found = check_source(path, textwrap.dedent(source)).findings
    return [f.start.line for f in found if f.code == code]


def test_tfd105_popped_then_set_again_before_the_strategy_keeps_the_finding():
    source = """
        import os
        import tensorflow as tf

        os.environ.pop("TF_CONFIG", None)
        x = tf.constant(1.0)
        os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """
    assert codes(source, "TFD105") == [8]


def test_tfd105_deleted_then_set_again_through_update_keeps_the_finding():
    source = """
        import os
        import tensorflow as tf

        del os.environ["TF_CONFIG"]
        x = tf.constant(1.0)
        os.environ.update({"TF_CONFIG": open("cluster.json").read()})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """
    assert codes(source, "TFD105") == [8]


def test_tfd105_popped_after_being_set_is_still_a_single_worker():
    source = """
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
        os.environ.pop("TF_CONFIG")
        x = tf.constant(1.0)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """
    assert codes(source, "TFD105") == []


def test_tfd605_reports_at_the_construction_and_names_the_assignment_line():
    source = """
        import os
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            configure()
            os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
    """
    found = [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD605"]
    assert [f.start.line for f in found] == [6]
    assert "line 8" in found[0].message


def test_tfd605_does_not_follow_an_assignment_in_an_exclusive_else():
    source = """
        import os
        import tensorflow as tf

        def main(local):
            if local:
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
            else:
                os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
            return strategy
    """
    assert codes(source, "TFD605") == []



def test_tfd605_follows_an_assignment_after_an_elif_chain():
    source = """
        import os
        import tensorflow as tf

        def main(mode):
            if mode == "a":
                pass
            elif mode == "b":
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
                os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
            return strategy
    """
    assert codes(source, "TFD605") == [9]


def test_tfd605_pasted_programs_each_setting_tf_config_before_their_strategy():
    source = """
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = os.environ["FIRST_CLUSTER"]
        first = tf.distribute.MultiWorkerMirroredStrategy()
        first.run(tf.function(lambda: 1.0))

        # The second report's program, pasted below: it sets its own cluster first.
        os.environ["TF_CONFIG"] = os.environ["SECOND_CLUSTER"]
        second = tf.distribute.MultiWorkerMirroredStrategy()
    """
    assert codes(source, "TFD605") == []


def test_tfd605_blames_the_assignment_no_later_strategy_reads():
    source = """
        import os
        import tensorflow as tf

        def late():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
            return strategy

        solo = tf.distribute.MultiWorkerMirroredStrategy()
        os.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]
        paired = tf.distribute.MultiWorkerMirroredStrategy()
    """
    # `solo`'s next assignment is `paired`'s; the one in `late` comes after its own strategy.
    found = [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD605"]
    assert [(f.start.line, "line 7" in f.message) for f in found] == [(6, True)]


def _notebook(cells: list[str]) -> str:
    import json

    return json.dumps(
        {
            "cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _tfd605_in_notebook(cells: list[str]) -> list[str]:
    from fixer.config import Config
    from fixer.notebook import analyse_notebook

    result = analyse_notebook("train.ipynb", _notebook(cells), Config(), fix=False, unsafe=False)
    return [f.message for f in result.findings if f.code == "TFD605"]


_KERNEL = "import os\nimport tensorflow as tf\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()"
_SET = "os.environ['TF_CONFIG'] = os.environ['CLUSTER_SPEC']"


def test_tfd605_in_a_notebook_says_the_order_not_a_combined_line():
    (message,) = _tfd605_in_notebook([_KERNEL, _SET])
    assert "further down" in message and "line" not in message


def test_tfd605_skips_a_notebook_that_launches_the_workers():
    assert _tfd605_in_notebook([_KERNEL, _SET, "%%bash\npython main.py &> job_0.log &"]) == []
