"""A worker script that writes the TF_CONFIG its launcher passed on the command line, then creates
its strategy, which joins the cluster."""

import json
import os
import sys

import tensorflow as tf


def main() -> None:
    hosts, index = sys.argv[1].split(","), int(sys.argv[2])
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": index}})
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    print(model.count_params())


if __name__ == "__main__":
    main()
