"""What a project's README tells users to run it on: the TensorFlow container image, install
command or TPU / job runtime its code lines name.

A README is weaker than the project's real pin files (the model prefers those in the same folder)
and stronger than nothing: it is how a project that ships no requirements file says
`docker run ... tensorflow/tensorflow:2.4.0-gpu`. Only a statement that names a version counts
(`tensorflow/tensorflow:latest` or a bare `pip install tensorflow` says which release only on the
day it was written). Read as text (never executed).
"""

from __future__ import annotations

import os
import re

from fixer.target.build_args import build_arg_releases
from fixer.target.continuation import joined_lines
from fixer.target.managed_images import managed_image_statements
from fixer.target.markdown import FENCE, is_section_heading, prose_lines
from fixer.target.notebook import install_evidence
from fixer.target.readme_environment import environment_statements
from fixer.target.readme_tables import version_table_statements
from fixer.target.readme_title import title_statements
from fixer.target.requirements import parse_requirement
from fixer.target.run_form import run_form_statements
from fixer.target.shell_scripts import module_loads
from fixer.target.sources import RUNTIME, Evidence, exactly, image_tensorflow, unknown_merlin_release
from fixer.target.supported_lines import supported_lines

README_NAME = re.compile(r"(?i)^readme\.(?:md|markdown|rst|txt)$")

# The official image without a version tag (`latest`, `nightly`, `devel-gpu`, none): the newest
# release on the day the README was written, which says nothing today.
_UNVERSIONED_IMAGE = re.compile(r"(?<![\w./-])(?:docker\.io/)?tensorflow/tensorflow(?!:\d)")
_INLINE = re.compile(r"`+([^`]+)`+")
# A shell prompt or privilege prefix before the command itself: `$ `, `> `, `sudo `.
_PROMPT = re.compile(r"^\s*(?:[$#>%]\s+|!)?(?:sudo\s+(?:-H\s+)?)?")
# A TPU's software version: `gcloud compute tpus create ... --version=2.4.0`, `ctpu up --tf-version 2.1`,
# `--version tpu-vm-tf-2.8.0` (a TPU VM image).
_TPU_VERSION = re.compile(r"--(?:tf-)?version[=\s]+[\"']?(?:tpu-vm-tf-)?(?P<major>\d+)\.(?P<minor>\d+)")


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the README's code: fenced blocks, indented blocks (Markdown's and
    reStructuredText's literal blocks), with continuation lines joined, and the inline code spans
    of prose lines."""
    block: list[tuple[int, str]] = []
    inline: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif fenced or line.startswith(("    ", "\t")):
            block.append((number, line.strip()))
        else:
            inline += [(number, span.strip()) for span in _INLINE.findall(line)]
    return sorted(joined_lines(block, strip=True) + inline)


def _versioned_image(code: str) -> tuple[int, int] | None:
    """The TensorFlow an image named in ``code`` ships, when its tag names a version."""
    return None if _UNVERSIONED_IMAGE.search(code) or unknown_merlin_release(code) else image_tensorflow(code)


def _statement(code: str, path: str, number: int) -> list[Evidence]:
    """The versioned TensorFlow one code line names: an install, an image, a TPU or job runtime."""
    command = _PROMPT.sub("", code, count=1)
    installed = [
        e for e in install_evidence(command, path, number) if e.kind == "tensorflow" and not e.allowed.open_ended
    ]
    if installed:
        return installed
    built = build_arg_releases(command)  # `docker build --build-arg tensorflow_pip_spec=tf-nightly-gpu==2.3.0.dev...`
    if built:
        return [Evidence("tensorflow", allowed, path, number, code) for allowed in built]
    modules = module_loads(command, path, number)  # `ml TensorFlow/2.11.0-foss-2022a` on an HPC system
    if modules:
        return modules
    version = _versioned_image(code)
    runtime = RUNTIME.search(code) or (_TPU_VERSION.search(code) if re.search(r"(?i)tpu", code) else None)
    if version is None and runtime is not None:
        version = int(runtime.group("major")), int(runtime.group("minor"))
    return [Evidence("tensorflow", exactly(version), path, number, code)] if version else []


def read_readme(text: str, path: str) -> list[Evidence]:
    """`README.md` / `.rst` / `.txt`: the versioned TensorFlow its code lines tell users to run on
    (`docker run tensorflow/tensorflow:2.4.0-gpu`, `pip install tensorflow==2.4.0`, a TPU's or
    job's runtime `--version 2.4.0`), and the image a notebook instance or VM is to be created
    from (fixer/target/managed_images.py), a job form's version (fixer/target/run_form.py), and,
    when none of these and the file is a README (not an install guide), a release its title or
    headings name (fixer/target/readme_title.py).
    Other prose is not read: an image it names may be another step's ("the dataset was prepared
    in tensorflow/tensorflow:1.15.2-gpu"). Only TensorFlow statements: a README's other installs
    are not the project's pins."""
    found = [e for number, code in code_lines(text) for e in _statement(code, path, number)]
    found += requirement_bullets(text, path) + managed_image_statements(text, path)
    found += run_form_statements(text, path)  # a platform's job form: "Framework: Tensorflow", "Version: 2.3.0-gpu"
    found += version_table_statements(text, path)  # a "TensorFlow Version(s)" column: "| Gaudi | 1.10.0 | 2.12.0 |"
    read = {e.line for e in found}  # a requirement bullet is read once, whichever reader names it
    found += [e for e in environment_statements(text, path) if e.line not in read]  # "tested on TensorFlow 2.7"
    lines = supported_lines(text, path)  # "TensorFlow: 1.15.x & 2.4.x": bounds renames, decides nothing
    if found or README_NAME.match(os.path.basename(path)) is None:
        return found + lines  # an install guide's title is not the project's own description of itself
    return title_statements(text, path) + lines  # "# ... in Tensorflow 2.3": only when nothing else is stated


# A heading that opens a list of what to install: `## Requirements`, `Dependencies:`, `**Environment**`,
# and the same words in Chinese READMEs (environment, dependencies, requirements, installation, needs).
_REQUIREMENTS_HEADING = re.compile(r"(?i)require|dependenc|prerequisite|environment|install|环境|依赖|要求|安装|需求")
# A bullet naming one pinned TensorFlow: `* tensorflow_gpu==2.3.1`, `- tensorflow == 2.3.1`.
_BULLET = re.compile(r"^\s*[*+-]\s+[`*]*\s*(?P<requirement>tensorflow[\w-]*\s*(?:===?|~=)\s*[\d.]+)")


def requirement_bullets(text: str, path: str) -> list[Evidence]:
    """The pinned TensorFlow of a bullet list under a requirements heading, outside code blocks
    (`## Requirements` then `* tensorflow_gpu==2.3.1`): how a project without a requirements file
    states what it was run on. Bullets under any other heading, and open ranges, say nothing."""
    found: list[Evidence] = []
    under_requirements = False
    for number, line, following in prose_lines(text):
        bullet = _BULLET.match(line)
        if bullet is None and is_section_heading(line, following):
            under_requirements = _REQUIREMENTS_HEADING.search(line) is not None
        elif bullet is not None and under_requirements:
            named = parse_requirement(bullet.group("requirement"))
            if named is not None and named.kind == "tensorflow" and not named.allowed.open_ended:
                found.append(Evidence("tensorflow", named.allowed, path, number, line.strip()))
    return found
