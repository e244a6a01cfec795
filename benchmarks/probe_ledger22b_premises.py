"""Premise of ledger22b's recall note: a `CommunicationImplementation` passed as `communication_options`.

IDRIS's Jean Zay example builds `tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=...,
communication_options=tf.distribute.experimental.CommunicationImplementation.NCCL)`: the bare
enum where the strategy takes a `CommunicationOptions` object. Does the strategy accept it, or
does construction raise before any training? No cluster is needed (no TF_CONFIG: one local worker):

    python benchmarks/probe_ledger22b_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger22b):

    enum as communication_options: ValueError: communication_options must be an instance of
        tf.distribute.experimental.CommunicationOptions
    CommunicationOptions(implementation=NCCL): strategy built, 1 replica(s)
"""

from __future__ import annotations

import os

import tensorflow as tf


def build(options: object) -> str:
    """Build a one-worker MultiWorkerMirroredStrategy with these communication options."""
    try:
        strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {error}"
    return f"strategy built, {strategy.num_replicas_in_sync} replica(s)"


def main() -> None:
    """Print what construction does with the bare enum, then with the object it expects."""
    os.environ.pop("TF_CONFIG", None)  # one local worker: no cluster needed for construction
    nccl = tf.distribute.experimental.CommunicationImplementation.NCCL
    print("enum as communication_options:", build(nccl))
    wrapped = tf.distribute.experimental.CommunicationOptions(implementation=nccl)
    print("CommunicationOptions(implementation=NCCL):", build(wrapped))


if __name__ == "__main__":
    main()
