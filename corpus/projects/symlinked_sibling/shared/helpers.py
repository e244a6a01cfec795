"""Helpers shared by the project's scripts (each script folder links to this file)."""

import numpy as np


def regression_data(rows: int, features: int):
    """A seeded linear regression problem."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, features)).astype("float32")
    return x, x.sum(axis=1, keepdims=True)
