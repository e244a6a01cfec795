"""The names of random draws and seeds, shared by the libcst analysis (fixer/tf/drawn_data.py) and
the `ast` summaries of imported modules (fixer/tf/module_summary.py). Canonical names
(fixer/tf/names.py)."""

from __future__ import annotations

# Modules whose functions draw from a process-wide generator.
DRAWING_MODULES = ("numpy.random.", "tensorflow.random.", "random.")
# Calls that seed a process-wide generator.
SEEDING = frozenset(
    {
        "numpy.random.seed",
        "random.seed",
        "tensorflow.random.set_seed",
        "keras.utils.set_random_seed",
        "tensorflow.keras.utils.set_random_seed",
    }
)
# Calls that make a generator of their own (seeded by their first argument or `seed=`).
GENERATORS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
        "tensorflow.random.Generator.from_seed",
        "tensorflow.random.Generator.from_non_deterministic_state",
    }
)
# Draws whose output is a function of the seed they are given, whatever the process.
STATELESS = "tensorflow.random.stateless_"
