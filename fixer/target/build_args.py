"""A TensorFlow pip spec passed to an image build as a build argument.

    docker build --build-arg tensorflow_pip_spec=tf-nightly-gpu==2.3.0.dev20200620 -f Dockerfile .
    ARG tensorflow_pip_spec=tensorflow-gpu==2.4.1

An image built for a project from a generic Dockerfile (PerfZero's, in Google's MLPerf submissions)
takes the TensorFlow to install as an argument whose value is a requirement: that requirement is a
statement of the README (a `docker build` code line) or Dockerfile (an `ARG` default) that names
it. Only a pinned requirement counts (`==`, a dated nightly is its release: 2.3 above); a bare
`tf-nightly-gpu` or a prose mention of tf-nightly says nothing. Read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.requirements import Range, parse_requirement

# `--build-arg NAME=VALUE` (or `--build-arg=NAME=VALUE`), the value optionally quoted.
_BUILD_ARG = re.compile(r"--build-arg[=\s]+[\"']?[A-Za-z_]\w*=[\"']?(?P<value>[^\s\"']+)")


def build_arg_releases(code: str) -> list[Range]:
    """The pinned TensorFlow each `--build-arg NAME=<requirement>` of a command line passes."""
    return [r for m in _BUILD_ARG.finditer(code) if (r := pinned_spec(m.group("value"))) is not None]


def pinned_spec(value: str) -> Range | None:
    """The releases ``value``, a TensorFlow requirement that names one (`tf-nightly-gpu==2.3.0.dev20200620`,
    `tensorflow==2.4.1`), allows; None for another package, a bare name or an open range."""
    if "==" not in value:
        return None
    named = parse_requirement(value)
    if named is None or named.kind != "tensorflow" or named.allowed.open_above:
        return None
    return named.allowed
