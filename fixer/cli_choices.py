"""Choices that several subcommands offer the same way (``--format``, ``--backend``)."""

from __future__ import annotations

import enum


class ReportFormat(str, enum.Enum):
    """Output formats of the commands that write one report (``doctor``, ``validate``)."""

    text = "text"
    json = "json"


class Backend(str, enum.Enum):
    """Where the workers run: processes on this machine, or Ray actors and tasks."""

    local = "local"
    ray = "ray"
