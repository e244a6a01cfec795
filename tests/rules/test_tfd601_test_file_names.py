"""TFD601 in a unit test whose file name puts `_test_` in the middle (issue 28, ledger20a class 4).

A test module named `cluster_test_with_visible_devices.py` escapes the `test_*`/`*_test` names, but
it defines a TestCase that writes a two-worker TF_CONFIG and checks how a library parses it: the
TF_CONFIG is the fixture under test, as in any test file. A `_test_` name counts only with tests
defined in the module, and tests defined in a module count only with such a name: the controls
keep the finding on a launcher named `run_test_cluster.py` and on a training script that keeps a
TestCase next to its job.
"""

from __future__ import annotations

import libcst as cst
from checked_codes import codes_of

from fixer.test_files import is_test_file

_CASE = """
import json
import os
import unittest

class ClusterParsingTest(unittest.TestCase):
    def test_second_worker(self):
        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}}
        )
        self.assertEqual(json.loads(os.environ["TF_CONFIG"])["task"]["index"], 1)

if __name__ == "__main__":
    unittest.main()
"""

_LAUNCHER = """
import json
import os
import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps(
    {"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 1}}
)
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""

_SCRIPT_WITH_A_CASE = (
    _LAUNCHER
    + """
import unittest

class SmokeTest(unittest.TestCase):
    def test_builds(self):
        self.assertIsNotNone(strategy)
"""
)


def _tfd601(source: str, path: str) -> list[str]:
    return [c for c in codes_of(source, path) if c == "TFD601"]


def test_a_testcase_module_with_test_inside_its_name_is_not_tfd601():
    assert _tfd601(_CASE, "tests/cluster_test_with_visible_devices.py") == []


def test_control_the_same_testcase_under_a_plain_name_stays_a_test_only_by_content():
    # No `_test_` segment: a TestCase alone does not make `train.py` a test file.
    assert _tfd601(_CASE, "tests/cluster_parsing.py") == ["TFD601"]


def test_control_a_launcher_with_test_inside_its_name_stays_tfd601():
    assert _tfd601(_LAUNCHER, "run_test_cluster.py") == ["TFD601"]


def test_control_a_training_script_with_a_testcase_stays_tfd601():
    assert _tfd601(_SCRIPT_WITH_A_CASE, "train_with_checks.py") == ["TFD601"]


def test_is_test_file_both_ways():
    case, launcher = cst.parse_module(_CASE), cst.parse_module(_LAUNCHER)
    assert is_test_file("cluster_test_with_visible_devices.py", case)
    assert is_test_file("a/b/test_cluster.py", launcher)  # the names pytest collects stay tests by name
    assert not is_test_file("run_test_cluster.py", launcher)
    assert not is_test_file("contest_runner.py", case)  # `test` inside a word is no segment
    pytest_style = cst.parse_module("def test_parse():\n    assert True\n")
    assert is_test_file("parser_test_cases.py", pytest_style)
