"""Which Keras a notebook's saved output shows ran it: a statement of the notebook's Keras where
nothing else states one (docs/target.md, "A notebook's recorded Keras").

A saved output that prints a Keras object prints its class path, and the class path tells the
Keras apart (benchmarks/probe_recorded_keras.py, TF 2.21):

- `<tensorflow.python.keras.callbacks.History at 0x..>`, `<class 'tensorflow.python.keras.engine
  .sequential.Sequential'>`: the Keras 2 inside TensorFlow's own tree, which `tf.keras` was up to
  TF 2.5 (TF 2.6.0's release notes: from 2.6 `tf.keras` is backed by the `keras` package);
- `<keras.callbacks.History ...>`, `<class 'keras.engine.functional.Functional'>`: the `keras`
  package of TF 2.6 on, before its code moved under `keras/src` (Keras 2);
- Keras 3 prints `keras.src.` paths only (`keras.src.callbacks.history.History`), a layer as
  `<Dense name=dense, built=True>`, an unbuilt model's summary with `(unbuilt)` rows
  (benchmarks/probe_ledger14b_premises.py); tf-keras prints `tf_keras.src.` paths.

The notebook says Keras 2 when an output shows a Keras 2 class path and none shows a Keras 3 sign
(a notebook run on both says neither). A printed TensorFlow release says nothing here: Kaggle's
TF 2.15 image ran Keras 3. (A notebook that imports `tensorflow.python.keras` itself, whose objects
print that path on any TensorFlow, is Keras 2 code already: fixer/tf/keras2_internals.py.)

Read as text (never executed), from the notebook file on disk, once per version of the file.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from fixer.notebook_cells import code_cells
from fixer.target.requirements import Range
from fixer.target.saved_runs import output_text  # one reading of saved outputs for both readers
from fixer.target.sources import Evidence

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.cache import Stamp

# A repr or `type()` of a Keras 2 class: in TensorFlow's tree, or in the `keras` package outside `src`.
_KERAS2_CLASS = re.compile(
    r"<(?:class ')?(?P<path>(?:tensorflow\.python\.keras|keras(?!\.src\.))\.(?:[a-z_][\w]*\.)+[A-Z]\w*)"
)
# Signs of a Keras 3 run: its class paths, its layer repr, an unbuilt model's summary rows.
_KERAS3_SIGN = re.compile(r"<(?:class ')?keras\.src\.|<\w+ name=\w+, built=(?:True|False)>|\(unbuilt\)")

_KNOWN: dict[str, tuple[Stamp, Evidence | None]] = {}


def recorded_keras2(notebook: Path, stamp: Stamp) -> Evidence | None:
    """The output that shows ``notebook`` (whose file stamp is ``stamp``) ran on Keras 2, as a
    statement of its cell; None when its outputs show no Keras 2 class or also a Keras 3 sign."""
    key = str(notebook)
    known = _KNOWN.get(key)
    if known is None or known[0] != stamp:
        try:
            text = notebook.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        known = _KNOWN[key] = (stamp, _recorded(text, key))
    return known[1]


def _recorded(text: str, path: str) -> Evidence | None:
    # Most notebooks print no Keras 2 class: the raw text tells without decoding the JSON.
    if _KERAS2_CLASS.search(text) is None:
        return None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    found: Evidence | None = None
    for cell, source, saved in code_cells(data):
        printed = output_text(saved)
        if _KERAS3_SIGN.search(printed):
            return None
        match = _KERAS2_CLASS.search(printed)
        if match is not None and found is None:
            line = max(1, len(source.splitlines()))  # the cell's last line: what printed it
            found = Evidence("recorded-keras", Range(), path, line, f"output: <{match.group('path')} ...>", cell=cell)
    return found
