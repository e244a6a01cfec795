"""What a notebook itself says about the TensorFlow it runs: its install cells, and the prebuilt
container or runtime its `%%writefile` trainers are submitted to.

Two scopes, because a notebook runs code in two places:

- its own cells run in the kernel, whose TensorFlow is the one the notebook installs
  (`!pip install tensorflow==2.6.0`, `%pip install -q "tensorflow>=2.5,<2.7"`, `%tensorflow_version 1.x`),
  or the release its headings and saved output agree on (fixer/target/notebook_title.py);
- a module written by `%%writefile` and submitted to a Vertex AI / AI Platform job or `docker run`
  runs in that container (`.../training/tf-cpu.2-9:latest`, `tensorflow/tensorflow:2.4.1-gpu`,
  `runtime_version="2.8"`, `--runtime-version 2.1`, or `"tf-cpu.{}".format(TF)` with `TF = "2-9"`
  in a cell); with no container named, it runs beside the kernel and gets the kernel's TensorFlow.

Read as text (never executed), from the notebook file on disk.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

from fixer.notebook_cells import code_cells
from fixer.notebook_launches import launches
from fixer.target.continuation import logical_lines
from fixer.target.frozen_runs import frozen_note
from fixer.target.notebook_exports import Counters, execution_counts, numbered_counts
from fixer.target.notebook_title import stated_release
from fixer.target.requirements import parse_requirement
from fixer.target.saved_runs import TF_VERSION_EXPRESSION, printed_version, saved_run
from fixer.target.sources import (
    RUNTIME,
    Evidence,
    exactly,
    image_statements,
    legacy_evidence,
    may_name_image,
    read_dockerfile,
)

# An install command, as a shell escape, a line magic, automagic or a line of a `%%bash` cell.
_INSTALL = re.compile(
    r"^\s*[!%]?\s*(?:(?:python3?|py|\{sys\.executable\})\s+-m\s+)?(?:pip3?|conda|mamba)\s+install\b(?P<args>.*)$"
)
# Options of `pip install` / `conda install` that take the next word as their value.
_VALUED = frozenset(
    {
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-e",
        "--editable",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "-t",
        "--target",
        "--prefix",
        "--root",
        "--channel",
        "-n",
        "--name",
        "-p",
    }
)
_UPGRADE = frozenset({"-U", "--upgrade", "--force-reinstall"})
# Colab's `%tensorflow_version 1.x` selects its TensorFlow 1.15 runtime.
_COLAB_TF1 = re.compile(r"^\s*%tensorflow_version\s+1(?:\.x|\.15)?\s*$")
_LEGACY_ENV = re.compile(r"^\s*%env\s+TF_USE_LEGACY_KERAS(?:\s*=\s*|\s+)(?P<value>\S+)")


@dataclass(frozen=True)
class NotebookPins:
    """What one notebook says: ``own`` for its kernel, ``containers`` for the modules it writes
    (their jobs' images and runtimes), and the numbers of the cells that write a file."""

    own: tuple[Evidence, ...] = ()
    containers: tuple[Evidence, ...] = ()
    writers: frozenset[int] = frozenset()
    paths: frozenset[str] = frozenset()  # relative paths its code names (`"./src"`): what its jobs submit
    scripts: frozenset[str] = frozenset()  # scripts its Vertex jobs submit (`script_path="task.py"`)
    instructions: tuple[Evidence, ...] = ()  # images its Markdown tells readers to run it in
    saved_run: Evidence | None = None  # the TF 2 run its saved outputs show: a past run, not a pin
    counts: Counters = ()  # its code cells' execution counts, which an nbconvert export repeats
    cell_counts: tuple[tuple[int, int | None], ...] = ()  # (cell number, execution count) of each code cell
    # Scripts its cells run in the kernel's environment (`!python main.py`, a `%%bash` cell, `%run`),
    # as written (relative to the notebook), where the launching cell saved the run's output
    # (fixer/notebook_launches.py): the recorded run is the script's. A background launch whose
    # output went elsewhere (`%%bash --bg`, no saved output) records nothing of the script.
    launched: frozenset[str] = frozenset()
    ran_clean: frozenset[int] = frozenset()  # code cells whose saved outputs show a run and no error


# A quoted relative path: `"./src"`, `'src/main.py'`, `"../trainer"` (no scheme, no spaces).
_RELATIVE_PATH = re.compile(r"""(["'])(?P<path>\.{0,2}/?[\w.-]+(?:/[\w.-]+)*/?)\1""")


# `aiplatform.CustomTrainingJob(script_path="task.py", container_uri=...)`, also
# `CustomJob.from_local_script(script_path=...)`: the script runs in the job's container.
_SCRIPT_PATH = re.compile(r"""\bscript_path\s*=\s*(["'])(?P<path>[^"'\n]+\.py)\1""")


def _submitted_scripts(cells: list[tuple[int, str]]) -> frozenset[str]:
    """The scripts the notebook's Vertex AI jobs submit, as written (relative to the notebook)."""
    return frozenset(m.group("path") for _, source in cells for m in _SCRIPT_PATH.finditer(source))


def _relative_paths(cells: list[tuple[int, str]]) -> frozenset[str]:
    """The relative paths quoted in the notebook's code cells (also in `key: value` job text)."""
    return frozenset(m.group("path") for _, source in cells for m in _RELATIVE_PATH.finditer(source))


def install_evidence(line: str, path: str, number: int, cell: int | None = None) -> list[Evidence]:
    """The TensorFlow, Keras and tf-keras requirements of one install command line (several
    commands joined by `&&` or `;`, other packages beside them); [] when it installs none. A bare
    name (no version, no `-U`) is kept as an open requirement: the target does not count it, since
    it installs nothing over a TensorFlow already there."""
    found: list[Evidence] = []
    if "install" not in line:
        return found  # each command _INSTALL matches holds the word
    for command in re.split(r"&&|;|\|\|", line):
        match = _INSTALL.match(command)
        if match is None:
            continue
        try:
            words = shlex.split(match.group("args"), comments=True)
        except ValueError:
            words = match.group("args").split()
        conda = "conda" in command.split("install", 1)[0] or "mamba" in command.split("install", 1)[0]
        skip_next = False
        for word in words:
            if skip_next:
                skip_next = False
                continue
            if word.startswith("-"):
                skip_next = word in _VALUED
                continue
            requirement = parse_requirement(word, conda=conda)
            if requirement is not None:
                found.append(Evidence(requirement.kind, requirement.allowed, path, number, command.strip(), cell=cell))
    return found


def _writes(source: str) -> str | None:
    """The file name a `%%writefile` cell writes, or None."""
    first = source.lstrip().split("\n", 1)[0].strip()
    if not first.startswith("%%writefile"):
        return None
    try:
        words = [w for w in shlex.split(first[len("%%writefile") :]) if not w.startswith("-")]
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


# A prebuilt image whose version is filled in: `"tf-cpu.{}".format(TF)`, `f"tf-gpu.{TF}"`.
_IMAGE_TEMPLATE = re.compile(r"""tf2?-(?:cpu|gpu|tpu)\.\{(?P<inline>\w*)\}(?:["']\s*\.format\(\s*(?P<argument>\w+))?""")
# `TF = "2-9"`, `TF = "2.8".replace(".", "-")`: the version such a template is filled with.
_VERSION_ASSIGNMENT = r"""(?m)^\s*{name}\s*=\s*["'](?P<major>\d+)[.-](?P<minor>\d+)["']"""


def _templated_image(line: str, cells: list[tuple[int, str]]) -> tuple[int, int] | None:
    """The version a templated prebuilt image name on ``line`` is filled with, from the
    notebook's assignment of that variable; None when there is no template or no such value."""
    template = _IMAGE_TEMPLATE.search(line)
    name = template and (template.group("inline") or template.group("argument"))
    if not name:
        return None
    pattern = re.compile(_VERSION_ASSIGNMENT.format(name=re.escape(name)))
    for _, source in cells:
        if (value := pattern.search(source)) is not None:
            return int(value.group("major")), int(value.group("minor"))
    return None


def _container_evidence(line: str, path: str, number: int, cell: int, cells: list[tuple[int, str]]) -> list[Evidence]:
    """A job's prebuilt image or runtime version named on one line of a (non-writing) cell."""
    templated = _templated_image(line, cells)
    if templated is not None:
        return [Evidence("tensorflow", exactly(templated), path, number, line.strip(), cell=cell)]
    runtime = RUNTIME.search(line)
    if runtime is not None:
        version = (int(runtime.group("major")), int(runtime.group("minor")))
        return [Evidence("tensorflow", exactly(version), path, number, line.strip(), cell=cell)]
    return image_statements(line, path, number, cell)


# Text without which no line below states anything: an install, Colab's TF 1 switch, the legacy
# Keras switch, a templated prebuilt image (`tf-cpu.{}`), a runtime version; images: may_name_image.
_STATING_WORDS = re.compile(r"install|%tensorflow_version|TF_USE_LEGACY_KERAS|pu\.\{|(?i:runtime)")


def _may_state(source: str) -> bool:
    """The cell may hold a line that states a TensorFlow (a cheap test before reading its lines).
    Its logical lines are pieces of ``source`` joined by spaces, so a word they hold is in it."""
    return _STATING_WORDS.search(source) is not None or may_name_image(source)


def notebook_pins(text: str, path: str) -> NotebookPins:
    """Everything the notebook JSON ``text`` (the file at ``path``) says about its TensorFlow."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return NotebookPins()
    own: list[Evidence] = []
    containers: list[Evidence] = []
    writers: set[int] = set()
    code = code_cells(data)
    cells = [(number, source) for number, source, _ in code]
    for cell, source, saved in code:
        written = _writes(source)
        if written is not None:
            writers.add(cell)
            if re.search(r"(?i)(?:^|/)(?:docker|container)file[^/]*$", written):
                # A Dockerfile the notebook writes: its base image is the trainer's container.
                body = source.lstrip().split("\n", 1)[1] if "\n" in source.lstrip() else ""
                containers += [e for e in read_dockerfile(body, path) if e.kind in ("tensorflow", "tf-nightly")]
            continue  # a written file's lines are not the kernel's commands
        for number, line in logical_lines(source) if _may_state(source) else ():
            installed = install_evidence(line, path, number, cell)
            if installed:
                own += installed
                continue
            if _COLAB_TF1.match(line):
                own.append(Evidence("tensorflow", exactly((1, 15)), path, number, line.strip(), cell=cell))
            elif (legacy := _LEGACY_ENV.match(line)) is not None:
                own.append(legacy_evidence(legacy.group("value"), path, number, line, cell))
            elif not line.lstrip().startswith("#"):
                containers += _container_evidence(line, path, number, cell, cells)
        version = printed_version(saved, source)
        # The kernel ran TensorFlow 1, as a statement of the cell that printed it: a TF 1
        # notebook, where the TF 2 names do not exist. A printed 2.x is only the last run (a
        # notebook that installs nothing runs on whatever TF 2 its kernel has today), unless the
        # cell ran long after newer releases came out: a frozen image (fixer/target/frozen_runs.py).
        frozen = frozen_note(version, saved) if version is not None and version[0] == 2 else None
        if version is not None and (version[0] == 1 or frozen is not None):
            lines = source.splitlines()
            at = next((n for n, printed in enumerate(lines, 1) if TF_VERSION_EXPRESSION.search(printed)), 1)
            said = f"{lines[at - 1].strip()}  # output: {version[0]}.{version[1]}"
            own.append(
                Evidence("tensorflow", exactly(version), path, at, f"{said}, {frozen}" if frozen else said, cell=cell)
            )
    from fixer.target.notebook_text import markdown_images  # it reads code lines as a README's, which imports us

    ran_clean = frozenset(number for number, _, saved in code if _ran_clean(saved))
    # Headings and saved output agreeing on a release: the notebook's own, first, so that a cell
    # installing another TensorFlow still decides what the kernel runs.
    stated = stated_release(data, code, path)
    if stated is not None:
        own.insert(0, stated)

    return NotebookPins(
        tuple(own),
        tuple(containers),
        frozenset(writers),
        _relative_paths(cells),
        _submitted_scripts(cells),
        tuple(markdown_images(data, path)),
        saved_run(code, path),
        execution_counts(data.get("cells") if isinstance(data, dict) else None),
        numbered_counts(data.get("cells") if isinstance(data, dict) else None),
        frozenset(launch.script for launch in launches(cells) if launch.cell in ran_clean),
        ran_clean,
    )


def _ran_clean(cell: dict[str, object]) -> bool:
    """The cell's saved outputs show it ran to the end: some output, none of them an error."""
    outputs = cell.get("outputs")
    if not isinstance(outputs, list) or not outputs:
        return False
    return all(isinstance(o, dict) and o.get("output_type") != "error" for o in outputs)


def upgrades(evidence: Evidence) -> bool:
    """The install command asks for the newest release (`-U` / `--upgrade`)."""
    return any(word in _UPGRADE for word in evidence.text.split())
