"""The pre-filter's facts on CPython's tree (fixer/facts.py): no finding lost, clean files skipped."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from invalid_examples import invalid_example_params

from codemods.api import renamed_distribute_api
from codemods.cluster import cluster_resolver_misuse
from fixer.ast_facts import ModuleFacts
from fixer.config import Config
from fixer.engine import check_source, rules_in_code, selected_rules
from fixer.facts import (
    CLIPPED_ON_REPLICAS,
    FITS_UNDER_MULTI_WORKER,
    KERAS3_REMOVED_NAME,
    MIRRORED_GIVEN_DEVICES,
    MULTI_WORKER,
    NOT_A_TEST,
    RENAMED_DISTRIBUTE_API,
    REPLICA_FUNCTION,
    RESOLVER_CALLED,
    RUN_CALL,
    RUN_OR_STEP,
    SCOPE_BLOCK,
    STATEFUL_USE_IN_BUILT_SCOPE,
    STRATEGY_IN_PLAY,
    UPDATES_SCOPE_VARIABLES,
    facts_hold,
)
from fixer.registry import default_registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("rule", "code"), list(invalid_example_params()))
def test_every_invalid_example_satisfies_its_rules_facts(rule, code):
    assert facts_hold(rule.facts, ModuleFacts.of(ast.parse(code))), [f.name for f in rule.facts]


def test_rules_declare_facts():
    # The rules most distribution-heavy files select: without facts each of them sends such a file to libcst.
    declared = {rule.code for rule in default_registry().rules if rule.facts}
    assert {"TFD101", "TFD109", "TFD110", "TFD113", "TFD114", "TFD203", "TFD205", "TFD301", "TFD404"} <= declared
    # The rules whose check starts from a `strategy.run` call (ReplicaModel.run_calls).
    assert {"TFD106", "TFD108", "TFD201", "TFD302", "TFD303", "TFD305", "TFD402"} <= declared
    assert "TFD401" in declared
    # speed9: the rules that kept tf-keras files without a finding when they had no fact.
    assert {"TFD103", "TFD104", "TFD112", "TFD304", "TFD403", "TFD504", "TFD604"} <= declared


def test_the_renamed_api_fact_names_every_name_tfd401_looks_for():
    tables = renamed_distribute_api
    names = {*tables._METHODS, *tables._REPLACED_METHODS, *(c.rsplit(".", 1)[1] for c in tables._CLASSES)}
    for name in names:
        assert RENAMED_DISTRIBUTE_API.holds(ModuleFacts.of(ast.parse(f"x.{name}\n"))), name


def test_the_facts_name_what_their_rules_look_for():
    # A copied table (a fact may not import a rule): TFD604's classes.
    for qualified in cluster_resolver_misuse._SIGNATURES:
        name = qualified.rsplit(".", 1)[1]
        assert RESOLVER_CALLED.holds(ModuleFacts.of(ast.parse(f"x.{name}(a)\n"))), name


def test_every_corpus_finding_is_in_a_file_whose_facts_hold():
    # The corpus's own findings, as `check` reports them: each rule that reported must pass its facts.
    out = subprocess.run(
        [sys.executable, "-m", "fixer", "check", "--no-cache", "--format", "json", "corpus/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    rules = {rule.code: rule for rule in default_registry().rules}
    findings = json.loads(out.stdout)
    assert findings
    reported = {(f["path"], f["code"]) for f in findings if f["code"] in rules and f["path"].endswith(".py")}
    assert reported
    for filename, code in reported:
        text = (ROOT / filename).read_text()
        assert facts_hold(rules[code].facts, ModuleFacts.of(ast.parse(text))), (filename, code)


def test_a_test_file_building_everything_in_the_scope_is_not_analysed():
    text = (
        "import tensorflow as tf\n"
        "def test_fit(distribution):\n"
        "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "    model.compile('sgd', jit_compile=True)\n"
        "    print(distribution.num_replicas_in_sync)\n"
    )
    rules = selected_rules("t_test.py", text, Config(), default_registry())
    assert rules  # the text stages keep it (`jit_compile`, a strategy-only attribute)
    assert rules_in_code(rules, text, ast.parse(text)) == []
    assert check_source("t_test.py", text).findings == []


@pytest.mark.parametrize(
    ("code", "fact"),
    [
        ("with strategy.scope():\n    pass\n", SCOPE_BLOCK),
        ("scope = strategy.scope()\nwith scope:\n    pass\n", SCOPE_BLOCK),
        # A scope block is `x.scope()` of what may be a strategy (fixer/strategy_receivers.py), entered
        # directly or through a name or attribute assigned it (StrategyModel.scope_blocks).
        ("s = tf.distribute.MirroredStrategy()\nwith s.scope():\n    pass\n", SCOPE_BLOCK),
        ("def f(distribution):\n    with distribution.scope():\n        pass\n", SCOPE_BLOCK),
        ("with tf.distribute.get_strategy().scope():\n    pass\n", SCOPE_BLOCK),
        ("with self.model.distribute_strategy.scope():\n    pass\n", SCOPE_BLOCK),
        ("class T:\n    def setUp(self):\n        self._scope = self._strategy.scope()\n"
         "    def test(self):\n        with self._scope:\n            pass\n", SCOPE_BLOCK),
        ("from helpers import make\nwith self._lock:\n    pass\nscope = make().scope()\nwith scope:\n    pass\n",
         STRATEGY_IN_PLAY),
        ("s = tf.distribute.MirroredStrategy()\n", STRATEGY_IN_PLAY),
        # A construction as StrategyModel.all_constructions finds one: through an alias, a project module.
        ("MS = tf.distribute.MirroredStrategy\ns = MS()\n", STRATEGY_IN_PLAY),
        ("from helpers import make\ns = make(tf.distribute.MirroredStrategy)\n", STRATEGY_IN_PLAY),
        ("class M(tf.keras.Model):\n    def train_step(self, data):\n        pass\n", STRATEGY_IN_PLAY),
        ("strategy.run(step, args=(x,))\n", REPLICA_FUNCTION),
        ("strategy.extended.call_for_each_replica(step)\n", REPLICA_FUNCTION),
        ("with strategy.scope():\n    def step(x):\n        pass\n", REPLICA_FUNCTION),
        ("scope = strategy.scope()\nwith scope:\n    def step(x):\n        pass\n", REPLICA_FUNCTION),
        ("with strategy.scope():\n    class M:\n        def step(self, x):\n            pass\n", REPLICA_FUNCTION),
        ("class M(tf.keras.Model):\n    def train_step(self, data):\n        pass\n", RUN_OR_STEP),
        # Receivers that may be strategies (fixer/strategy_receivers.py), each as StrategyModel sees one.
        ("s = tf.distribute.MirroredStrategy()\ns.run(step)\n", RUN_CALL),
        ("from tensorflow.distribute import MirroredStrategy as MS\ns = MS()\nt = s\nt.run(step)\n", RUN_CALL),
        ("MS = tf.distribute.MirroredStrategy\nMS().run(step)\n", RUN_CALL),
        ("from tensorflow.distribute import MirroredStrategy as M\nMS = M\ns = MS()\ns.run(step)\n", RUN_CALL),
        ("import tensorflow.distribute.MirroredStrategy as MS\nMS().run(step)\n", RUN_CALL),
        ("from helpers import make\nmake().run(step)\n", RUN_CALL),  # a project module may hand one on
        ("def make():\n    return tf.distribute.TPUStrategy(r)\nmake().run(step)\n", RUN_CALL),
        ("tf.distribute.get_strategy().run(step)\n", RUN_CALL),
        ("def f(d: tf.distribute.Strategy):\n    d.run(step)\n", RUN_CALL),
        ("def f(d: 'Optional[tf.distribute.Strategy]'):\n    d.run(step)\n", RUN_CALL),
        ("def f(d):\n    print(d.num_replicas_in_sync)\n    d.run(step)\n", RUN_CALL),
        ("def f(distribution):\n    with distribution.scope():\n        distribution.run(step)\n", RUN_CALL),
        ("def f(runner):\n    runner.scope()\n    runner.run(step)\n", RUN_CALL),  # a parameter: passed one
        ("ex.scope()\nex.run(step, args=(1,))\n", RUN_CALL),  # used both ways
        ("class T:\n    def __init__(self):\n        self._strategy = tf.distribute.MirroredStrategy()\n"
         "    def step(self):\n        self._strategy.run(fn)\n", RUN_CALL),
        ("self.model.distribute_strategy.run(fn)\n", RUN_CALL),
        ("d.experimental_run_v2(fn)\n", RUN_CALL),
        ("d.extended.call_for_each_replica(fn)\n", RUN_CALL),
        ("s = tf.distribute.MirroredStrategy(['/gpu:0', '/gpu:1'])\n", MIRRORED_GIVEN_DEVICES),
        ("from tensorflow.distribute import MirroredStrategy as MS\ns = MS(devices)\n", MIRRORED_GIVEN_DEVICES),
        ("s = tf.distribute.MirroredStrategy(cross_device_ops=ops, devices=d)\n", MIRRORED_GIVEN_DEVICES),
        ("s = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n", MULTI_WORKER),
        ("from tensorflow.distribute.experimental import TPUStrategy\n", RENAMED_DISTRIBUTE_API),
        ("from tensorflow.distribute.cluster_resolver import X\n", RENAMED_DISTRIBUTE_API),
        ("from tensorflow.compat.v2.distribute.experimental import X\n", RENAMED_DISTRIBUTE_API),
        ("E = tf.distribute.experimental\nE.CollectiveCommunication.RING\n", RENAMED_DISTRIBUTE_API),
        ("strategy.experimental_run_v2(fn)\n", RENAMED_DISTRIBUTE_API),
        # TFD103: an update, and a scope block its optimizer or variables may come from.
        ("with strategy.scope():\n    opt = make()\ndef step():\n    opt.apply_gradients(g)\n", UPDATES_SCOPE_VARIABLES),
        ("def f(distribution):\n    with distribution.scope():\n        opt.minimize(loss, v)\n",
         UPDATES_SCOPE_VARIABLES),
        # TFD104: a strategy built, its scope, and a call that makes or updates variables in it.
        ("s = tf.distribute.MirroredStrategy()\nwith s.scope():\n    model.fit(x)\n", STATEFUL_USE_IN_BUILT_SCOPE),
        ("from helpers import make\ns = make()\nwith s.scope():\n    v.assign(1)\n", STATEFUL_USE_IN_BUILT_SCOPE),
        # TFD304: a clip in a replica function before `apply_gradients`, or norm clipping in a scope.
        ("def step(x):\n    g = tf.clip_by_global_norm(g, 1.0)\n    opt.apply_gradients(g)\n"
         "strategy.run(step, args=(x,))\n", CLIPPED_ON_REPLICAS),
        ("class M(tf.keras.Model):\n    def train_step(self, data):\n        self.optimizer.apply_gradients(g)\n",
         CLIPPED_ON_REPLICAS),
        ("with strategy.scope():\n    opt = keras.optimizers.Adam(global_clipnorm=1.0)\n", CLIPPED_ON_REPLICAS),
        # TFD403: the removed names as attributes or imported from `...experimental`, or the old
        # loss-scaling methods where a strategy may be in play.
        ("layer = tf.keras.layers.experimental.SyncBatchNormalization()\n", KERAS3_REMOVED_NAME),
        ("from tensorflow.keras.layers import experimental as E\nc = E.DatasetCreator(fn)\n", KERAS3_REMOVED_NAME),
        ("from keras.layers.experimental import SyncBatchNormalization as SBN\n", KERAS3_REMOVED_NAME),
        ("from tensorflow.keras.utils.experimental import DatasetCreator\n", KERAS3_REMOVED_NAME),
        ("s = tf.distribute.MirroredStrategy()\nloss = opt.get_scaled_loss(loss)\n", KERAS3_REMOVED_NAME),
        ("def f(d):\n    n = d.num_replicas_in_sync\n    g = opt.get_unscaled_gradients(g)\n", KERAS3_REMOVED_NAME),
        ("def f(d: tf.distribute.Strategy):\n    loss = opt.get_scaled_loss(loss)\n", KERAS3_REMOVED_NAME),
        ("from tensorflow.distribute import MirroredStrategy as MS\ndef f(d: MS):\n"
         "    loss = opt.get_scaled_loss(loss)\n", KERAS3_REMOVED_NAME),
        # TFD504: `fit` where a multi-worker or parameter-server strategy is built or annotated.
        ("s = tf.distribute.MultiWorkerMirroredStrategy()\nmodel.fit(x)\n", FITS_UNDER_MULTI_WORKER),
        ("from tensorflow.distribute.experimental import ParameterServerStrategy as PS\ns = PS(r)\n"
         "model.evaluate(x)\n", FITS_UNDER_MULTI_WORKER),
        ("MW = tf.distribute.MultiWorkerMirroredStrategy\nM = MW\ns = M()\nmodel.fit(x)\n", FITS_UNDER_MULTI_WORKER),
        ("def make():\n    return tf.distribute.MultiWorkerMirroredStrategy()\ns = make()\nmodel.fit(x)\n",
         FITS_UNDER_MULTI_WORKER),
        ("def f(s: tf.distribute.MultiWorkerMirroredStrategy):\n    model.fit(x)\n", FITS_UNDER_MULTI_WORKER),
        # TFD604: a call of a class whose signature it checks, by its name or an alias.
        ("r = tf.distribute.cluster_resolver.SimpleClusterResolver(workers=['a:1'])\n", RESOLVER_CALLED),
        ("import tensorflow.train.ClusterSpec as CS\nc = CS(worker=['a:1'])\n", RESOLVER_CALLED),
        ("from tensorflow.distribute.cluster_resolver import TFConfigClusterResolver as R\nr = R(task_index=0)\n",
         RESOLVER_CALLED),
        ("s = tf.distribute.experimental.ParameterServerStrategy()\n", RESOLVER_CALLED),
    ],
)
def test_facts_hold_on_the_structure_they_name(code, fact):
    assert fact.holds(ModuleFacts.of(ast.parse(code)))


@pytest.mark.parametrize(
    ("code", "fact"),
    [
        ("with open('f') as f, self.assertRaises(E):\n    pass\n", SCOPE_BLOCK),
        # Names and attributes entered that hold no strategy's scope (tf_keras/engine/base_layer.py,
        # losses.py, optimizers/optimizer.py), and `.scope()` of objects that are no strategy.
        ("with self._metrics_lock:\n    pass\nwith graph_ctx:\n    pass\nwith tape:\n    pass\n", SCOPE_BLOCK),
        ("scope = var_store.scope()\nwith scope:\n    pass\n", SCOPE_BLOCK),
        ("layout_map = LayoutMap(mesh)\nwith layout_map.scope():\n    pass\n", SCOPE_BLOCK),
        ("with self._lock:\n    v = tf.Variable(1.0)\n", STRATEGY_IN_PLAY),
        ("with lock:\n    def step(x):\n        pass\n", REPLICA_FUNCTION),
        ("scope = var_store.scope()\nwith scope:\n    def step(x):\n        pass\n", REPLICA_FUNCTION),
        # tf_keras/engine/base_layer_v1.py names MirroredStrategy only in a message.
        ("raise ValueError('use a different Strategy, e.g. a MirroredStrategy.')\n", MIRRORED_GIVEN_DEVICES),
        ("os.environ['TF_CONFIG'] = json.dumps(cluster)\n", MULTI_WORKER),
        ("n = tf.distribute.get_strategy().num_replicas_in_sync\n", STRATEGY_IN_PLAY),
        # A strategy class named but never constructed (tf_keras' engine and test bases).
        ("if isinstance(s, tf.distribute.MirroredStrategy):\n    v = tf.Variable(1.0)\n", STRATEGY_IN_PLAY),
        ("def step(x):\n    return x\nstep(1)\n", REPLICA_FUNCTION),
        ("def f():\n    with s.scope():\n        def step(x):\n            pass\n", REPLICA_FUNCTION),
        ("with open(path) as f:\n    def step(x):\n        pass\n", REPLICA_FUNCTION),
        # TF 1 session code (tf_keras/backend.py): `.run(` on sessions, never on a strategy.
        ("session = get_session()\nsession.run(init)\nget_session(x).run(x)\nself._session.run(t)\n", RUN_CALL),
        ("sess = tf.compat.v1.Session()\nsess.run(fetches, feed_dict={x: 1})\n", RUN_CALL),
        ("def f(sess):\n    sess.run(op)\n", RUN_CALL),  # a parameter, but never used as a strategy
        ("runner.run(step, args=(1,))\n", RUN_CALL),  # Strategy.run's signature alone: not named like one
        ("def make():\n    return tf.compat.v1.Session()\nmake().run(op)\n", RUN_OR_STEP),
        # tf_keras/backend.py names a strategy class only in a string.
        ("is_tpu = lambda k: k.__name__.startswith('TPUStrategy')\n", RENAMED_DISTRIBUTE_API),
        ("from .distribute import experimental\n", RENAMED_DISTRIBUTE_API),
        # An update without a scope block (tf_keras/optimizers/optimizer.py), a scope without one.
        ("def step():\n    opt.apply_gradients(zip(g, v))\nwith self._lock:\n    pass\n", UPDATES_SCOPE_VARIABLES),
        ("with strategy.scope():\n    model = make()\n", UPDATES_SCOPE_VARIABLES),
        # A scope of a strategy built elsewhere (a test's `distribution` parameter), or no stateful call.
        ("def test(distribution):\n    with distribution.scope():\n        model.fit(x)\n",
         STATEFUL_USE_IN_BUILT_SCOPE),
        ("s = tf.distribute.MirroredStrategy()\nwith s.scope():\n    model = make()\n", STATEFUL_USE_IN_BUILT_SCOPE),
        # A clip with `apply_gradients` but no replica function (tf_keras/optimizers/utils.py).
        ("def step():\n    g = tf.clip_by_global_norm(g, 1.0)\n    opt.apply_gradients(g)\n", CLIPPED_ON_REPLICAS),
        ("opt = keras.optimizers.Adam(clipnorm=1.0)\n", CLIPPED_ON_REPLICAS),
        # The class defined or re-exported, not reached through `...experimental` (tf_keras' own
        # layers/__init__.py, utils/dataset_creator.py); the methods defined, no strategy anywhere.
        ("class SyncBatchNormalization(BatchNormalization):\n    pass\n", KERAS3_REMOVED_NAME),
        ("from tf_keras.layers.normalization.batch_normalization import SyncBatchNormalization\n",
         KERAS3_REMOVED_NAME),
        ("loss = self.optimizer.get_scaled_loss(loss)\n", KERAS3_REMOVED_NAME),
        # Named only in an `isinstance` test (tf_keras/layers/experimental/dynamic_embedding.py), or no `fit`.
        ("if isinstance(s, tf.distribute.ParameterServerStrategy):\n    model.fit(x)\n", FITS_UNDER_MULTI_WORKER),
        ("s = tf.distribute.MultiWorkerMirroredStrategy()\nrun(s)\n", FITS_UNDER_MULTI_WORKER),
        ("if isinstance(s, tf.distribute.experimental.ParameterServerStrategy):\n    pass\n", RESOLVER_CALLED),
        ("r = tf.distribute.cluster_resolver.SimpleClusterResolver(*args, **kwargs)\n", RESOLVER_CALLED),
        ("s = tf.distribute.MirroredStrategy()\nt = tf.distribute.MirroredStrategy(*devices)\n", MIRRORED_GIVEN_DEVICES),
        ("if isinstance(s, tf.distribute.MirroredStrategy):\n    pass\n", MIRRORED_GIVEN_DEVICES),
    ],
)
def test_facts_do_not_hold_without_it(code, fact):
    assert not fact.holds(ModuleFacts.of(ast.parse(code)))


def test_the_cluster_rules_do_not_analyse_a_test_file():
    # TFD601-TFD603 and TFD112 look at no test file: its TF_CONFIG, clusters and devices are fixtures.
    text = (
        "import json, os\n"
        "import tensorflow as tf\n"
        "os.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['localhost:1']}, 'task': {'index': 0}})\n"
        "strategy = tf.distribute.MirroredStrategy(['/gpu:0', '/gpu:1'])\n"
    )
    module = ModuleFacts.of(ast.parse(text))
    assert facts_hold((NOT_A_TEST,), module, "pkg/train.py")
    assert not facts_hold((NOT_A_TEST,), module, "pkg/callbacks_test.py")
    cluster_rules = {"TFD112", "TFD601", "TFD602", "TFD603"}
    for path, kept in (("callbacks_test.py", set()), ("train.py", cluster_rules)):
        rules = selected_rules(path, text, Config(), default_registry())
        assert cluster_rules <= {rule.code for rule in rules}  # the text stages keep them
        assert {rule.code for rule in rules_in_code(rules, text, ast.parse(text), path)} & cluster_rules == kept
    assert {f.code for f in check_source("train.py", text).findings} & cluster_rules


def test_a_session_run_module_is_not_analysed():
    # The `.run(`-triggered rules keep TF 1 session code for `session.run(...)` until its facts say no.
    text = (
        "import tensorflow as tf\n"
        "def init(session):\n"
        "    print(tf.distribute.get_strategy().num_replicas_in_sync)\n"
        "    session.run(tf.compat.v1.global_variables_initializer())\n"
    )
    rules = selected_rules("backend.py", text, Config(), default_registry())
    assert {"TFD106", "TFD108", "TFD402"} <= {rule.code for rule in rules}
    assert rules_in_code(rules, text, ast.parse(text)) == []
    assert check_source("backend.py", text).findings == []


def test_a_module_testing_for_a_parameter_server_strategy_is_not_analysed():
    # tf_keras/layers/experimental/dynamic_embedding.py's shape: the class in an `isinstance` test, a `fit` elsewhere.
    text = (
        "import tensorflow as tf\n"
        "def train(model, strategy, x):\n"
        "    if isinstance(strategy, tf.distribute.experimental.ParameterServerStrategy):\n"
        "        raise ValueError('not supported')\n"
        "    return model.fit(x)\n"
    )
    rules = selected_rules("train.py", text, Config(), default_registry())
    assert {"TFD504", "TFD604"} <= {rule.code for rule in rules}  # the text stages keep them
    assert rules_in_code(rules, text, ast.parse(text), "train.py") == []
    built = text.replace("return model.fit(x)", "strategy = tf.distribute.experimental.ParameterServerStrategy()\n"
                         "    return model.fit(x)")
    assert {"TFD504", "TFD604"} <= {rule.code for rule in rules_in_code(rules, built, ast.parse(built), "train.py")}
