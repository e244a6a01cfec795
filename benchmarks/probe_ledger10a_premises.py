"""A premise a ledger10a verdict (benchmarks/WILD.md) rests on, measured on TF 2.21.

`strategy.experimental_run(fn, next(iterator))`, where `fn(x, y)` takes the two parts of an
element (a Kaggle notebook passes an element, not an iterator): does it run? And TFD401's advice
for `experimental_run`, `strategy.run(fn, args=(next(iterator),))`, against
`strategy.run(fn, args=next(iterator))`? (No Keras is involved.)

    python benchmarks/probe_ledger10a_premises.py

Output on TensorFlow 2.21 (2026-11-27, ledger10a):

    tf 2.21 | experimental_run(fn, next(iterator)): AttributeError: 'tuple' object has no attribute 'get_next'
    tf 2.21 | run(fn, args=(next(iterator),)): TypeError: ...step() missing 1 required positional argument: 'y'
    tf 2.21 | run(fn, args=next(iterator)): runs on 2 replicas

`experimental_run` (TF 1's method, kept in TF 2 as `run(fn, args=(input_iterator.get_next(),))`)
fails when given an element, and the call that works for that shape is
`run(fn, args=next(iterator))`, not the iterator form the message suggests.
"""

from __future__ import annotations

from probing import first_error_line, print_outcomes, two_cpu_replicas


def experimental_run_on_an_element(flavour: str) -> None:
    """`experimental_run` and `run` given an element of a distributed dataset."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    dataset = tf.data.Dataset.from_tensor_slices((tf.ones((32, 2)), tf.zeros((32,)))).batch(4)
    iterator = iter(strategy.experimental_distribute_dataset(dataset))

    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        return tf.reduce_sum(x) + tf.reduce_sum(y)

    def replicas(result: object) -> str:
        return f"runs on {len(strategy.experimental_local_results(result))} replicas"

    print_outcomes(
        flavour,
        [
            ("experimental_run(fn, next(iterator))", lambda: replicas(strategy.experimental_run(step, next(iterator)))),
            ("run(fn, args=(next(iterator),))", lambda: replicas(strategy.run(step, args=(next(iterator),)))),
            ("run(fn, args=next(iterator))", lambda: replicas(strategy.run(step, args=next(iterator)))),
        ],
        describe=first_error_line,
    )


def main() -> None:
    """Run the case on two logical CPUs, in this process."""
    import tensorflow as tf

    experimental_run_on_an_element(f"tf {'.'.join(tf.__version__.split('.')[:2])}")


if __name__ == "__main__":
    main()
