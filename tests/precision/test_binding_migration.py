"""Regression tests for the fixer/tf helpers moved onto the semantic model (issue 25): a name is
what the bindings that reach its use say, not any assignment of the same name in the file.

Each test is a minimal program in our own words and says why the old answer was wrong.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_CONFIG = '{"cluster": {"worker": ["w0:2222", "w1:2222"]}, "task": {"type": "worker", "index": 5}}'


def _codes(source: str) -> list[str]:
    return sorted(f.code for f in check_source("launch.py", textwrap.dedent(source)).findings)


def test_a_parameter_is_not_the_module_constant_of_the_same_name():
    # `launch` sets TF_CONFIG from its parameter, which the caller reads from the environment;
    # the module-level `config` of the same name never reaches it (it was read as that literal:
    # TFD601 and TFD603 on a value the code does not hard-code).
    source = f"""
        import json
        import os

        config = {_CONFIG}
        print(config)


        def launch(config):
            os.environ["TF_CONFIG"] = json.dumps(config)


        launch(json.loads(os.environ["SPEC"]))
    """
    assert _codes(source) == []


def test_the_module_constant_read_where_it_reaches_is_still_literal():
    source = f"""
        import json
        import os

        config = {_CONFIG}
        os.environ["TF_CONFIG"] = json.dumps(config)
    """
    assert _codes(source) == ["TFD601", "TFD603"]
