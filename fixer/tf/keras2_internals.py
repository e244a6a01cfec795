"""Whether a module imports Keras 2's internals: evidence it is written for Keras 2, handed to the
project-target model like a Keras-2-only call (``Target.with_keras2_usage``).

Measured on TensorFlow 2.21 (benchmarks/probe_keras2_internals.py): `tensorflow.python.keras`
still imports, but it is TensorFlow's frozen Keras 2 copy, not `tf.keras` (its `Layer` is not
`tf.keras.layers.Layer`, a `tf.keras` layer is no instance of it, its `LossScaleOptimizer` has
Keras 2's `get_scaled_loss`); `keras.engine` (Keras 2's package layout) does not exist in Keras 3
(ModuleNotFoundError). Code that mixes these internals with `tf.keras` was written when `tf.keras`
was Keras 2.
"""

from __future__ import annotations

import re

from fixer.target.requirements import Range
from fixer.target.sources import Evidence, line_of

_INTERNALS_IMPORT = re.compile(
    r"(?m)^[ \t]*(?:from[ \t]+(?:tensorflow\.python\.keras|keras\.engine)(?:\.[\w.]+)?[ \t]+import\b"
    r"|import[ \t]+(?:tensorflow\.python\.keras|keras\.engine)\b)"
)


def keras2_internals_evidence(path: str, text: str) -> Evidence | None:
    """The module's first import of Keras 2 internals (`from tensorflow.python.keras.engine import
    base_layer`, `import keras.engine`), as a statement about its target; None when there is none."""
    match = _INTERNALS_IMPORT.search(text)
    if match is None:
        return None
    return Evidence("keras2-usage", Range(), path, line_of(text, match.start()), match.group(0).strip())
