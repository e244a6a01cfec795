"""How many files a dataset's source reads and how many workers a literal TF_CONFIG names: what
TFD205 (file sharding with too few files) and TFD202 (auto-sharding turned off) both ask."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.tf_config_sources import NOT_LITERAL, env_setters, literal_value

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_READERS = frozenset(
    {"tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset", "tensorflow.data.FixedLengthRecordDataset"}
)
_LIST_FILES = "tensorflow.data.Dataset.list_files"
_GLOB = frozenset("*?[")


def file_count(tf: TFModel, source: cst.Call) -> int | None:
    """How many files ``source`` reads, when the source says it plainly, else None."""
    callee = tf.names.callee(source) or ""
    if callee not in _READERS and callee != _LIST_FILES or not source.args:
        return None
    first = source.args[0]
    if first.keyword is not None and first.keyword.value not in ("filenames", "file_pattern"):
        return None
    value = literal_value(tf, first.value)
    if value is NOT_LITERAL and isinstance(first.value, cst.Name):
        # A path string cannot be changed in place: the one binding that reaches the read says it
        # (literal_value gives up on any name passed to a call, which only matters for containers).
        bound = tf.semantic.value_of(first.value)
        value = (
            literal_value(tf, bound) if isinstance(bound, (cst.SimpleString, cst.ConcatenatedString)) else NOT_LITERAL
        )
    paths = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    if not paths or not all(isinstance(p, str) for p in paths):
        return None
    if callee == _LIST_FILES and any(_GLOB & set(p) for p in paths):
        return None  # how many files a glob matches is not in the source
    return len(set(paths))


def literal_worker_count(tf: TFModel) -> int | None:
    """The number of workers (chief included) of the one literal TF_CONFIG the file sets, else None."""
    setters = env_setters(tf, "TF_CONFIG")
    if len(setters) != 1:
        return None
    value = literal_value(tf, setters[0].value)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if value is NOT_LITERAL or not isinstance(value, dict) or not isinstance(value.get("cluster"), dict):
        return None
    cluster = value["cluster"]
    count = sum(len(cluster.get(job) or []) for job in ("chief", "worker"))
    return count or None
