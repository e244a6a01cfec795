"""The helpers of tests/semantic import as a plain module."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
