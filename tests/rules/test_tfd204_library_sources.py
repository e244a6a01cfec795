"""TFD204 on an unseeded element-level shuffle of a `tfds.load` split or of dict elements, sharded by data."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_TFDS = """
import tensorflow as tf
import tensorflow_datasets as tfds

strategy = tf.distribute.MultiWorkerMirroredStrategy()
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.{policy}
{load}
train = train.shuffle(1000{seed}).batch(64).with_options(options)
dist = strategy.experimental_distribute_dataset(train)
"""
_LOAD = 'train = tfds.load("mnist", split="train")'


def tfd204(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD204"]


def test_an_unseeded_shuffle_of_a_tfds_split_sharded_by_data_is_reported():
    assert tfd204(_TFDS.format(policy="DATA", load=_LOAD, seed="")) == [9]


def test_a_seeded_shuffle_of_a_tfds_split_is_not_reported():
    assert tfd204(_TFDS.format(policy="DATA", load=_LOAD, seed=", seed=7")) == []


def test_a_tfds_split_under_the_default_policy_is_not_reported():
    # AUTO over a split read from TFRecord files shards by file when there are enough of them.
    assert tfd204(_TFDS.format(policy="AUTO", load=_LOAD, seed="")) == []


def test_a_tfds_split_sharded_by_file_is_not_reported():
    assert tfd204(_TFDS.format(policy="FILE", load=_LOAD, seed="")) == []


def test_a_tfds_load_without_a_split_is_not_taken_for_a_dataset():
    load = 'splits = tfds.load("mnist")\ntrain = splits["train"]'
    assert tfd204(_TFDS.format(policy="DATA", load=load, seed="")) == []


def test_dict_elements_shuffled_before_sharding_by_data_are_reported():
    # Reported before this change too: the elements' structure does not matter to sharding by data.
    load = 'train = tf.data.Dataset.from_tensor_slices({"image": tf.zeros((64, 8)), "label": tf.zeros((64,))})'
    assert tfd204(_TFDS.format(policy="DATA", load=load, seed="")) == [9]
