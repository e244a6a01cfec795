"""A requirement on standalone multi-backend Keras (`keras==2.2.4`, `keras<=2.3.1`, any `keras`
capped below 2.4): the project runs it on a TensorFlow 1.x or early 2.x backend, not on `tf.keras`.

Keras 2.3.0's release notes call it the last major release of multi-backend Keras, compatible with
TensorFlow 1.13, 1.14 and 2.0; Keras 2.4.0 replaced it with a redirect to `tf.keras` (its release
notes: "we have discontinued multi-backend Keras"). A project pinned below 2.4 therefore runs
TensorFlow 2.2 at newest (the last release before 2.4.0's) and 1.13 at oldest: renames must exist on
both (docs/target.md, "How a version is decided").
"""

from __future__ import annotations

from fixer.target.requirements import Range
from fixer.target.sources import Evidence

# Keras versions below this are multi-backend Keras (2.4.0 is a redirect to tf.keras).
_MULTI_BACKEND_BELOW = (2, 4, 0)
NEWEST_TENSORFLOW = (2, 2)  # the newest TensorFlow a multi-backend Keras project is judged on
_OLDEST_TENSORFLOW = (1, 13)  # Keras 2.3.0: "maintains compatibility with TensorFlow 1.14, 1.13"


def multi_backend(keras: Evidence | None) -> bool:
    """``keras`` is a requirement that admits only multi-backend Keras (`keras<=2.3.1`)."""
    return keras is not None and keras.kind == "keras" and keras.allowed.high <= _MULTI_BACKEND_BELOW


def multi_backend_floor(keras: Evidence | None) -> Evidence | None:
    """The oldest TensorFlow a multi-backend Keras requirement runs on, as a floor for renames."""
    if not multi_backend(keras) or keras is None:
        return None
    allowed = Range()
    allowed.at_least(_OLDEST_TENSORFLOW)
    allowed.below((NEWEST_TENSORFLOW[0], NEWEST_TENSORFLOW[1] + 1))
    return Evidence("tensorflow", allowed, keras.path, keras.line, keras.text)


def multi_backend_cap(requirement: Evidence) -> Evidence | None:
    """A multi-backend Keras requirement as the cap it sets on a TensorFlow requirement open above
    (`tensorflow>=1.14` beside `keras<=2.3.1`): TensorFlow 2.2. None for any other statement."""
    if not multi_backend(requirement):
        return None
    allowed = Range()
    allowed.below((NEWEST_TENSORFLOW[0], NEWEST_TENSORFLOW[1] + 1))
    return Evidence("keras", allowed, requirement.path, requirement.line, requirement.text)
