"""The start of a local Ray head is tried again when Ray's fixed startup wait ran out, and only then.

``_init_local`` takes the ray module as an argument; a stand-in that fails the way Ray 2.x does on
a loaded machine (its message, from ray/_private/node.py) drives the policy here. The real start
is exercised by the Ray tests in tests/validate and tests/migrate.
"""

from __future__ import annotations

import pytest

from fixer.ray_session import STARTUP_ATTEMPTS, RaySessionError, _init_local

TIMED_OUT = (
    "The current node timed out during startup. This could happen because some of the raylet "
    "failed to startup or the GCS has become overloaded."
)


class StartsAfter:
    """A ray module whose ``init`` fails with ``error`` on its first ``failures`` calls."""

    def __init__(self, failures: int, error: str = TIMED_OUT) -> None:
        self.failures, self.error = failures, error
        self.inits = self.shutdowns = 0

    def init(self, **_options: object) -> None:
        self.inits += 1
        if self.inits <= self.failures:
            raise Exception(self.error)

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_a_start_that_timed_out_is_tried_again_and_cleaned_up_first(tmp_path):
    ray = StartsAfter(STARTUP_ATTEMPTS - 1)
    _init_local(ray, 1, str(tmp_path))
    assert (ray.inits, ray.shutdowns) == (STARTUP_ATTEMPTS, STARTUP_ATTEMPTS - 1)


def test_the_attempts_are_bounded_and_counted_in_the_message(tmp_path):
    ray = StartsAfter(STARTUP_ATTEMPTS)
    with pytest.raises(RaySessionError, match=rf"cannot start a local Ray \({STARTUP_ATTEMPTS} attempts\): The current node"):
        _init_local(ray, 1, str(tmp_path))
    assert ray.inits == STARTUP_ATTEMPTS


def test_any_other_failure_is_reported_at_once(tmp_path):
    ray = StartsAfter(1, error="object_store_memory is larger than the memory available")
    with pytest.raises(RaySessionError, match=r"^cannot start a local Ray: object_store_memory"):
        _init_local(ray, 1, str(tmp_path))
    assert ray.inits == 1
