"""TFD601 on the ways people really write TF_CONFIG: the tutorial's dump-then-reload, notebook
fragments that never import `os`/`json`, and one hard-coded file per task."""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source, fix_source
from fixer.runner import Job, run


def tfd601(source: str, path: str = "train.py") -> list:
    return [f for f in check_source(path, textwrap.dedent(source)).findings if f.code == "TFD601"]


FOUND = {
    "tutorial dump then reload": """
        import json
        import os
        import tensorflow as tf

        tf_config = {
            'cluster': {'worker': ['localhost:12345', 'localhost:23456']},
            'task': {'type': 'worker', 'index': 0}
        }
        os.environ['TF_CONFIG'] = json.dumps(tf_config)
        tf_config = json.loads(os.environ['TF_CONFIG'])
        num_workers = len(tf_config['cluster']['worker'])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """,
    "notebook cell without imports": """
        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"worker": ["10.1.0.4:2222", "10.1.0.5:2222"]},
            "task": {"type": "worker", "index": 0},
        })
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """,
    "snippet with update and no import": """
        import tensorflow as tf
        os.environ.update({"TF_CONFIG": '{"cluster": {"worker": ["gpu1:9000", "gpu2:9000"]}, "task": {"type": "worker", "index": 1}}'})
        mw = tf.distribute.MultiWorkerMirroredStrategy()
    """,
    "re-bound to a literal before the write": """
        import json, os
        config = {"cluster": {"worker": ["a:1"]}}
        config = {"cluster": {"worker": ["h1:2000", "h2:2000"]}, "task": {"type": "worker", "index": 0}}
        os.environ["TF_CONFIG"] = json.dumps(config)
    """,
}

NOT_FOUND = {
    "chosen in a branch from flags": """
        import json, os, sys
        if sys.argv[1] == "0":
            cfg = {"cluster": {"worker": ["h1:2000", "h2:2000"]}, "task": {"type": "worker", "index": 0}}
        else:
            cfg = {"cluster": {"worker": ["h1:2000", "h2:2000"]}, "task": {"type": "worker", "index": 1}}
        os.environ["TF_CONFIG"] = json.dumps(cfg)
    """,
    "a literal placeholder replaced from flags": """
        import json, os
        cfg = {"cluster": {}, "task": {}}
        cfg = make_cluster(FLAGS.hosts, FLAGS.task_index)
        os.environ["TF_CONFIG"] = json.dumps(cfg)
        cfg = json.loads(os.environ["TF_CONFIG"])
    """,
    "notebook cell that only reads it": """
        tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
        print(tf_config.get("task"))
    """,
    "os is a local object here": """
        import json

        def configure(os, spec):
            os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}})
    """,
}


@pytest.mark.parametrize("source", FOUND.values(), ids=FOUND.keys())
def test_hard_coded_tf_config_is_found(source):
    assert len(tfd601(source)) == 1


@pytest.mark.parametrize("source", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_tf_config_not_from_literals_is_not_reported(source):
    assert tfd601(source) == []


def test_per_task_file_is_not_told_that_all_workers_collide():
    source = """
        import json, os
        import tensorflow as tf
        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["n0:2222", "n1:2222"]}, "task": {"type": "worker", "index": 1}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """
    (finding,) = tfd601(source, "worker1.py")
    assert "every worker runs this script" not in finding.message
    assert "task index are fixed in code" in finding.message


def test_tutorial_idiom_that_reads_tf_config_back_gets_advice_not_a_removal(tmp_path):
    """Removing TF_CONFIG would leave the script's own `json.loads(os.environ['TF_CONFIG'])`
    reading nothing when it runs without a launcher: even where a launcher of the project sets
    TF_CONFIG, the finding stays as advice with the reason."""
    source = textwrap.dedent(FOUND["tutorial dump then reload"])
    (tmp_path / "train.py").write_text(source)
    (tmp_path / "run.sh").write_text('#!/bin/sh\nTF_CONFIG="$(cat task.json)" python train.py\n')
    job = Job(use_cache=False, fix=True, unsafe=True, project_roots=(str(tmp_path),))
    (result,) = run([tmp_path / "train.py"], job, jobs=1)
    (finding,) = [f for f in result.findings if f.code == "TFD601"]
    assert finding.fix is None
    assert "which the program still reads" in finding.message
    assert result.fixed_text is None
    assert fix_source("train.py", source, unsafe=True).fixed_text is None


def test_a_function_defined_earlier_that_changes_the_dict_still_counts():
    source = """
        import json, os, sys

        def set_index(i):
            CFG["task"]["index"] = i

        CFG = {"cluster": {"worker": ["h1:2000", "h2:2000"]}, "task": {"type": "worker", "index": 0}}
        set_index(int(sys.argv[1]))
        os.environ["TF_CONFIG"] = json.dumps(CFG)
    """
    assert tfd601(source) == []


def test_a_format_shown_then_deleted_before_any_strategy_is_not_reported():
    shown = """
        import json
        import os

        tf_config = {"cluster": {"chief": ["localhost:11111"], "worker": ["localhost:12345"]}, "task": {"type": "chief", "index": 0}}
        os.environ["TF_CONFIG"] = json.dumps(tf_config)
        print(os.environ["TF_CONFIG"])
        del os.environ["TF_CONFIG"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """
    assert tfd601(shown) == []


def test_deleted_after_the_strategy_read_it_is_still_reported():
    used = """
        import json
        import os
        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["n1:2222", "n2:2222"]}, "task": {"type": "worker", "index": 0}})
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        train(strategy)
        os.environ.pop("TF_CONFIG", None)
    """
    assert len(tfd601(used)) == 1
