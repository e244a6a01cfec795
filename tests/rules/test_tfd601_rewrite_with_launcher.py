"""TFD601's rewrite where a launcher of the project sets TF_CONFIG.

The rule removes a hard-coded TF_CONFIG only when a launcher of the project starts the script
with one (fixer/tf/script_launchers.py); elsewhere it advises. These are the rewrites the rule's
examples showed before that change, each now checked in a project whose `run.sh` gives the
script its TF_CONFIG: the removal, its comment keeping the cluster, the clearers, `pass` in an
emptied block, and idempotence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.runner import Job, run

ONLY = (("select", ["TFD601"]),)  # the examples' harness checks one rule at a time too
LAUNCHER = '#!/bin/sh\nTF_CONFIG="$(cat "task$1.json")" python train.py\n'

# (what it shows, the script, the script after the rewrite)
REWRITES = [
    (
        "seed 004 triple-quoted string",
        'import os\nimport tensorflow as tf\n\nos.environ[\'TF_CONFIG\'] = """\n{\n    "cluster": {\n        "worker": ["10.0.0.1:2222", "10.0.0.2:2222"]\n    },\n    "task": {"type": "worker", "index": 0}\n}\n"""\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "json.dumps of a named dict",
        'import json\nimport os\nimport tensorflow as tf\n\ntf_config = {"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 1}}\nos.environ["TF_CONFIG"] = json.dumps(tf_config)\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["host1:2222", "host2:2222"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "environ imported, strategy with options",
        'import json\nfrom os import environ\nimport tensorflow as tf\n\nenviron["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})\nstrategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)\n',
        'import json\nfrom os import environ\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["a:1", "b:1"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)\n',
    ),
    (
        "update with an f-string of literals",
        'import os as operating_system\nimport tensorflow as tf\n\nPORT = 2222\noperating_system.environ.update({"TF_CONFIG": f\'{{"cluster": {{"worker": ["w0:{PORT}", "w1:{PORT}"]}}, "task": {{"type": "worker", "index": 0}}}}\'})\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import os as operating_system\nimport tensorflow as tf\n\nPORT = 2222\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["w0:2222", "w1:2222"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "setdefault with the experimental class",
        'import os\nimport tensorflow as tf\n\nos.environ.setdefault("TF_CONFIG", \'{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}\')\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n',
        'import os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["w0:1", "w1:1"]}\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "putenv without a strategy",
        'import os\nimport tensorflow as tf\n\nos.putenv("TF_CONFIG", \'{"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 0}}\')\n',
        'import os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["w0:1"]}\n',
    ),
    (
        "in a function, resolver already given",
        'import os\nimport tensorflow as tf\n\ndef main():\n    os.environ["TF_CONFIG"] = \'{"cluster": {"worker": ["w0:1", "w1:1"]}, "task": {"type": "worker", "index": 0}}\'\n    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()\n    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)\n',
        'import os\nimport tensorflow as tf\n\ndef main():\n    # distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n    # {"worker": ["w0:1", "w1:1"]}\n    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()\n    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)\n',
    ),
    (
        "json.dumps of dict(...) calls",
        'import json\nimport os\n\nimport tensorflow as tf\n\nos.environ["TF_CONFIG"] = json.dumps(dict(cluster=dict(worker=["n1:2222", "n2:2222"]), task=dict(type="worker", index=0)))\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\n\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["n1:2222", "n2:2222"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "update() with another variable: only the TF_CONFIG key goes",
        'import json\nimport os\n\nimport tensorflow as tf\n\nos.environ.update({\n    "TF_CPP_MIN_LOG_LEVEL": "2",\n    "TF_CONFIG": json.dumps({"cluster": {"worker": ["g1:4000", "g2:4000"]}, "task": {"type": "worker", "index": 1}}),\n})\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\n\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["g1:4000", "g2:4000"]}\nos.environ.update({\n    "TF_CPP_MIN_LOG_LEVEL": "2",\n})\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "update() keywords: only TF_CONFIG goes",
        'import os\n\nimport tensorflow as tf\n\nos.environ.update(TF_CONFIG=\'{"cluster": {"worker": ["n1:1", "n2:1"]}, "task": {"type": "worker", "index": 0}}\', NCCL_DEBUG="WARN")\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import os\n\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["n1:1", "n2:1"]}\nos.environ.update(NCCL_DEBUG="WARN")\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "the only statement of a function: pass remains",
        'import json\nimport os\n\nimport tensorflow as tf\n\n\ndef configure():\n    spec = {"cluster": {"worker": ["a.example:2222", "b.example:2222"]}, "task": {"type": "worker", "index": 0}}\n    os.environ["TF_CONFIG"] = json.dumps(spec)\n\n\nconfigure()\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\n\nimport tensorflow as tf\n\n\ndef configure():\n    # distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n    # {"worker": ["a.example:2222", "b.example:2222"]}\n    pass  # TF_CONFIG comes from the launcher\n\n\nconfigure()\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "a literal changed by a literal item assignment",
        'import json\nimport os\n\nimport tensorflow as tf\n\ncfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker", "index": 0}}\ncfg["task"]["index"] = 1\nos.environ["TF_CONFIG"] = json.dumps(cfg)\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\n\nimport tensorflow as tf\n\ncfg = {"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker", "index": 0}}\ncfg["task"]["index"] = 1\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["n1:2222", "n2:2222"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "setdefault with implicitly concatenated strings over several lines",
        'import os\nimport tensorflow as tf\n\nos.environ.setdefault(\n    "TF_CONFIG",\n    \'{"cluster": {"worker": ["node-a:2000", "node-b:2000"]}, \'\n    \'"task": {"type": "worker", "index": 1}}\',\n)\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"worker": ["node-a:2000", "node-b:2000"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "a pop that made room for it would erase the launcher's TF_CONFIG: removed too",
        'import os\nimport tensorflow as tf\n\nos.environ.pop("TF_CONFIG", None)\nos.environ["TF_CONFIG"] = (\'{"cluster": {"chief": ["c0:3000"], "worker": ["w0:3000"]}, \'\n                           \'"task": {"type": "chief", "index": 0}}\')\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import os\nimport tensorflow as tf\n\n# distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n# {"chief": ["c0:3000"], "worker": ["w0:3000"]}\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
    (
        "a guarded del goes; a pop whose value is kept reads instead of deleting",
        'import json\nimport os\nimport tensorflow as tf\n\n\ndef configure():\n    if "TF_CONFIG" in os.environ:\n        del os.environ["TF_CONFIG"]\n    previous = os.environ.pop("TF_CONFIG", None)\n    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["p:1", "q:1"]}, "task": {"type": "worker", "index": 0}})\n    return previous\n\n\nconfigure()\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
        'import json\nimport os\nimport tensorflow as tf\n\n\ndef configure():\n    previous = os.environ.get("TF_CONFIG", None)\n    # distfix TFD601: TF_CONFIG comes from each task\'s launcher now; the cluster removed here was\n    # {"worker": ["p:1", "q:1"]}\n    return previous\n\n\nconfigure()\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\n',
    ),
]


def _fix(project: Path, source: str) -> tuple[list, str | None]:
    (project / "train.py").write_text(source)
    (project / "run.sh").write_text(LAUNCHER)
    job = Job(use_cache=False, fix=True, unsafe=True, project_roots=(str(project),), overrides=ONLY)
    (result,) = run([project / "train.py"], job, jobs=1)
    return [f for f in result.applied if f.code == "TFD601"], result.fixed_text


@pytest.mark.parametrize(
    ("note", "source", "after"), REWRITES, ids=[case[0] or str(n) for n, case in enumerate(REWRITES)]
)
def test_rewrite_where_a_launcher_sets_tf_config(tmp_path, note, source, after):
    applied, fixed = _fix(tmp_path, source)
    assert applied, note
    assert fixed == after
    assert _fix(tmp_path, after)[1] is None, "the fix is not idempotent"


def test_the_same_script_without_the_launcher_is_not_rewritten(tmp_path):
    _, source, _ = REWRITES[0]
    (tmp_path / "train.py").write_text(source)
    job = Job(use_cache=False, fix=True, unsafe=True, project_roots=(str(tmp_path),))
    (result,) = run([tmp_path / "train.py"], job, jobs=1)
    assert result.fixed_text is None
    assert [f.fix for f in result.findings if f.code == "TFD601"] == [None]
