"""The TensorFlow each NVIDIA container tag ships, as fixer/target/versions.py records it, with
the published source of every row (docs/target.md, "Images").

Sources:
- NVIDIA Merlin containers (`nvcr.io/nvidia/merlin/merlin-tensorflow[-training]`, `merlin-training`):
  NVIDIA's support-matrix data, `docs/data.json` of github.com/NVIDIA-Merlin/Merlin at commit
  2770de35 (the `tf` entry of each release; the pages nvidia-merlin.github.io/Merlin/.../support_matrix/
  are made from it). A tag it does not list (`merlin-tensorflow:22.08`) is an unknown release.
- NGC TensorFlow containers (`nvcr.io/nvidia/tensorflow:YY.MM-tf2-py3`): NVIDIA's "Frameworks Support
  Matrix" and the TensorFlow release notes per release (docs.nvidia.com/deeplearning/frameworks/
  tensorflow-release-notes/rel-YY-MM.html); the Merlin data above also lists the NGC base image of each
  Merlin training release with its TensorFlow (21.07-tf2: 2.5, 21.10/21.11/21.12-tf2: 2.6,
  22.01/22.02-tf2: 2.7, 22.03/22.04-tf2: 2.8), which agree with the table's rows.

Run: python benchmarks/ngc_tensorflow_tags.py [--merlin-data PATH]  (PATH: a copy of that data.json,
to compare the Merlin table with it; without one the table is printed only).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fixer.target.versions import MERLIN_TENSORFLOW, NGC_RELEASES  # noqa: E402


def _release(tag: tuple[int, int]) -> str:
    return f"{tag[0]:02d}.{tag[1]:02d}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merlin-data", type=Path, help="NVIDIA-Merlin/Merlin docs/data.json to compare with")
    args = parser.parse_args(argv)
    print("nvcr.io/nvidia/tensorflow:YY.MM-tf2-py3 (from this release on, until the next row)")
    for tag, version in sorted(NGC_RELEASES.items()):
        print(f"  {_release(tag)}  TensorFlow {version[0]}.{version[1]}")
    data = json.loads(args.merlin_data.read_text()) if args.merlin_data else None
    differences = 0
    for name, table in MERLIN_TENSORFLOW.items():
        print(f"nvcr.io/nvidia/merlin/{name}:YY.MM (only these releases)")
        published = (data or {}).get(f"nvcr.io/nvidia/merlin/{name}", {})
        for tag, version in sorted(table.items()):
            stated = published.get(_release(tag), {}).get("tf", "")
            check = "" if data is None else f"   data.json: {stated or 'absent'}"
            differences += data is not None and not stated.startswith(f"{version[0]}.{version[1]}.")
            print(f"  {_release(tag)}  TensorFlow {version[0]}.{version[1]}{check}")
    if data is not None:
        print(f"{differences} row(s) differ from the published data")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
