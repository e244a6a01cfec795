"""The Keras flavour a script chooses before it imports TensorFlow, chosen before the bootstrap imports it.

TensorFlow decides at its import where ``tensorflow.keras`` submodules come from
(``from tensorflow.keras import layers``): tf-keras' tree when ``TF_USE_LEGACY_KERAS`` is set
then, Keras 3's otherwise; only ``tf.keras`` reached as an attribute is decided later. The
bootstrap imports TensorFlow before the script runs, so a script that sets the variable on its
first lines (as TFD504's fix does) would get tf-keras' ``tf.keras`` and Keras 3's
``tensorflow.keras.layers``: a program that ``python script.py`` never runs. When the script's
text sets the variable to a true value before its first TensorFlow import, the bootstrap sets
it too, before importing TensorFlow. A script that sets it after importing TensorFlow (too late:
TensorFlow has decided by then) runs as written.
"""

from __future__ import annotations

import os
import re

_SETS_LEGACY = re.compile(
    r"""os\.environ(?:\[\s*['"]TF_USE_LEGACY_KERAS['"]\s*\]\s*=|\.setdefault\(\s*['"]TF_USE_LEGACY_KERAS['"]\s*,)\s*['"](?:1|true|True)['"]"""
)
_IMPORTS_TENSORFLOW = re.compile(r"^[ \t]*(?:import|from)[ \t]+tensorflow\b", re.MULTILINE)


def adopt_script_choice(script: str) -> None:
    """Set ``TF_USE_LEGACY_KERAS=1`` when ``script`` sets it before its first TensorFlow import."""
    try:
        with open(script, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):  # the run reports an unreadable script itself
        return
    first_import = _IMPORTS_TENSORFLOW.search(text)
    if _SETS_LEGACY.search(text[: first_import.start()] if first_import else text):
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
