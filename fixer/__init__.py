"""distfix: find and fix the known mistakes in TensorFlow distributed-training scripts.

The public API is the engine: :func:`check_source` and :func:`fix_source` (see ``fixer.engine``).
"""

__version__ = "0.1.0"

from fixer.engine import check_source, fix_source  # noqa: E402
from fixer.types import Applicability, Edit, FileResult, Finding, Fix  # noqa: E402

__all__ = ["check_source", "fix_source", "Applicability", "Edit", "FileResult", "Finding", "Fix", "__version__"]
