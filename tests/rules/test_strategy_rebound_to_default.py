"""A strategy name rebound to the default strategy: `s = MirroredStrategy()` then
`s = tf.distribute.get_strategy()`. The second binding is the one every later use reads, and the
default strategy (module level, outside every `with`) has one replica: its scope distributes
nothing, so TFD101 (compile outside the scope) and TFD303 (per-replica loss) do not apply. The
same programs without the rebinding line keep their findings."""

from __future__ import annotations

import textwrap

import libcst as cst

from fixer.engine import check_source
from fixer.semantic import SemanticModel
from fixer.tf.index import ModuleIndex
from fixer.tf.names import NameResolver
from fixer.tf.strategies import StrategyModel

_REBIND = "strategy = tf.distribute.get_strategy()\n"

_COMPILE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
{rebind}
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
"""

_TRAIN_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
{rebind}

class Model(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = tf.reduce_mean(tf.keras.losses.mse(y, pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}


with strategy.scope():
    model = Model()
    model.compile(optimizer="adam")
"""


def codes(source: str, code: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == code]


def test_compile_outside_the_default_strategys_scope_is_not_reported():
    assert codes(_COMPILE.format(rebind=_REBIND), "TFD101") == []
    assert codes(_COMPILE.format(rebind=""), "TFD101") == [7]


def test_per_replica_loss_under_the_default_strategy_is_not_reported():
    assert codes(_TRAIN_STEP.format(rebind=_REBIND), "TFD303") == []
    assert codes(_TRAIN_STEP.format(rebind=""), "TFD303") == [11]


def model(source: str) -> StrategyModel:
    index = ModuleIndex.build(cst.parse_module(textwrap.dedent(source)))
    semantic = SemanticModel(index)
    return StrategyModel(index, NameResolver(index), lambda: semantic)


def test_a_strategy_replaced_before_any_use_is_built_but_distributes_nothing():
    strategies = model(_COMPILE.format(rebind=_REBIND))
    assert [kind for _, kind in strategies.all_constructions] == ["tensorflow.distribute.MirroredStrategy"]
    assert strategies.constructions == []
    assert strategies.scope_blocks == []
    assert strategies.single_replica


def test_a_strategy_used_before_the_rebinding_stays_a_construction():
    strategies = model("""
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        print(strategy.num_replicas_in_sync)
        strategy = tf.distribute.get_strategy()
        """)
    assert len(strategies.constructions) == 1
    assert not strategies.single_replica


def test_get_strategy_inside_a_function_or_a_with_is_not_the_default():
    strategies = model("""
        import tensorflow as tf
        mirrored = tf.distribute.MirroredStrategy()

        def build():
            strategy = tf.distribute.get_strategy()
            with strategy.scope():
                return tf.keras.Sequential()

        with mirrored.scope():
            inner = tf.distribute.get_strategy()
            with inner.scope():
                pass
        """)
    assert len(strategies.scope_blocks) == 3


def test_a_strategy_never_used_nor_rebound_stays_a_construction():
    strategies = model("""
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.Sequential()
        """)
    assert len(strategies.constructions) == 1
