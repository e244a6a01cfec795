"""TFD101 on a model made by a local helper and a strategy the program never uses (ledger10a class 2).

A helper that builds, compiles and returns a model, called outside the scope, is one mistake: it is
reported once, at the call (moving that call into the scope runs the whole helper there). When the
program makes a strategy and never uses it (no scope, no `run`, no distributed dataset), the message
says so instead of "used by distributed code".
"""

from __future__ import annotations

from fixer.config import Config
from fixer.engine import check_source, fix_source

HELPER = """\
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
strategy = tf.distribute.TPUStrategy(resolver)


def build_classifier(classes):
    net = tf.keras.Sequential([tf.keras.applications.MobileNetV2(include_top=False), tf.keras.layers.Dense(classes)])
    net.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
    return net


classifier = build_classifier(10)
classifier.fit(images, epochs=3)
"""


def tfd101(source: str) -> list:
    return [f for f in check_source("kernel.py", source, Config()).findings if f.code == "TFD101"]


def test_a_helper_s_model_is_reported_once_at_the_call():
    (finding,) = tfd101(HELPER)
    assert finding.start.line == 13, "the call site, not the constructor or compile inside the helper"
    assert "used by distributed code" not in finding.message
    assert "`TPUStrategy` made at line 4 is never used" in finding.message
    assert len(finding.message) <= 200


def test_the_call_site_fix_runs_the_helper_in_the_scope():
    fixed = fix_source("kernel.py", HELPER, Config(), unsafe=True).fixed_text
    assert fixed is not None
    assert "with strategy.scope():\n    classifier = build_classifier(10)\n" in fixed
    assert "    net = tf.keras.Sequential(" in fixed, "the helper itself is left as it is"


def test_a_model_built_in_the_open_with_an_unused_strategy_says_the_strategy_is_unused():
    """Control: without a helper the construction is still reported, once for the model: its
    message says to build and compile it in the scope, and its fix moves the compile along
    (the compile is no finding of its own: ledger15b's noise, prec40)."""
    source = HELPER.replace("classifier = build_classifier(10)\n", "").replace(
        "classifier.fit",
        "net = tf.keras.Sequential([tf.keras.layers.Dense(3)])\n"
        "net.compile(optimizer=tf.keras.optimizers.Adam(), loss='mse')\nnet.fit",
    )
    (finding,) = tfd101(source)
    assert finding.start.line == 13
    assert "is never used (no scope, `run` or distributed dataset)" in finding.message
    assert "build and compile the model in its scope" in finding.message
    fixed = fix_source("kernel.py", source, Config(), unsafe=True).fixed_text
    assert fixed is not None and "\n    net.compile(optimizer=" in fixed


def test_a_strategy_that_distributes_the_dataset_keeps_the_distributed_code_message():
    """Control: a distributed dataset is a use of the strategy; the forgotten scope is the finding."""
    source = HELPER.replace(
        "classifier.fit(images,", "classifier.fit(strategy.experimental_distribute_dataset(images),"
    )
    (finding,) = tfd101(source)
    assert finding.start.line == 13
    assert "used by distributed code" in finding.message and "never used" not in finding.message


def test_a_helper_that_does_not_return_its_model_is_reported_inside():
    """Control: a function that builds and fits a model itself is no factory; its model stays reported
    inside it (once: with the strategy unused, its compile is the same mistake)."""
    source = HELPER.replace("    return net\n", "    net.fit(images, epochs=3)\n").replace(
        "classifier = build_classifier(10)\nclassifier.fit(images, epochs=3)\n", "build_classifier(10)\n"
    )
    assert [f.start.line for f in tfd101(source)] == [8]
