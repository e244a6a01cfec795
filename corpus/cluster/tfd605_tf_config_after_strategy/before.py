"""A worker script that creates its strategy first and only then writes the TF_CONFIG its launcher
passed on the command line: the strategy never sees the cluster and each worker trains alone."""

import json
import os
import sys

import tensorflow as tf


def main() -> None:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    hosts, index = sys.argv[1].split(","), int(sys.argv[2])
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": index}})
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    print(model.count_params())


if __name__ == "__main__":
    main()
