"""Train the model under MirroredStrategy: `python -m trainer.task --epochs N`."""

import argparse

import numpy as np
import tensorflow as tf

from trainer import model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--batch-size", type=int, default=16, help="per replica")
    args = parser.parse_args()

    strategy = tf.distribute.MirroredStrategy()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 4)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(args.batch_size * strategy.num_replicas_in_sync)
    with strategy.scope():
        net = model.build(4)
        net.compile(optimizer="sgd", loss="mse")
    net.fit(dataset, epochs=args.epochs, verbose=0)


if __name__ == "__main__":
    main()
