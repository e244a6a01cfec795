"""Masking of IPython syntax in notebook cells, so that libcst can parse them.

Only real IPython syntax is masked, and only where a statement can start (not inside a string,
brackets or a backslash continuation): line magics and shell escapes (``%cmd``, ``!cmd``,
``x = %cmd``, ``a, b = !cmd``: any target, fixer/shell_assignment.py), help (``obj?``, ``obj??``,
``?obj``, ``??obj`` on a line of their own) and cell magics (``%%bash`` masks its whole cell;
``%%time`` and other Python cell magics only their first line), a one-line cell IPython runs as a
magic without its `%` (automagic: ``pip install x``, ``ls $DIR``), and the call escapes ``,f a b``
(``f("a", "b")``), ``;f a b`` (``f("a b")``) and ``/f a b`` (``f(a, b)``), which IPython turns into
an expression statement at any indentation. A masked line becomes a comment of the same length, so
columns stay put; a call escape becomes the no-op statement ``0#...`` of the same length (it may be
a block's only body).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fixer.shell_assignment import is_shell_assignment
from fixer.syntax import parse_module

_ESCAPE = re.compile(r"^\s*(%|!)")
# IPython's auto-quote (`,`, `;`) and auto-paren (`/`, which needs a name right after it) escapes.
_CALL_ESCAPE = re.compile(r"^\s*([,;]|/\S)")
_HELP = re.compile(r"^\s*(\?{1,2}[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\?{1,2})\s*$")
# Cell magics whose body is still Python, run in the kernel's process: only their first line is
# masked. ipyparallel's `%%px` (flags `--local`, `--targets`, `--block`...) runs its body on every
# engine, one per worker under MPI or Slurm: the multi-worker program itself. `%%python`,
# `%%python3` and `%%pypy` also hold Python but run it in a fresh subprocess whose names the other
# cells never see, and `%%writefile` writes a file (fixer/written_modules.py reads `.py` ones): all
# stay masked here.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "tensorflow_version", "px"})
_TRIPLES = ('"""', "'''")
# IPython's line magics, which automagic runs without `%` (its default POSIX aliases, `ls`, `cat`,
# `mkdir`..., are among them): InteractiveShell's magics_manager, IPython 9.18. Listed rather than
# imported, so that the static paths need no IPython.
AUTOMAGIC_NAMES = frozenset(
    """alias alias_magic autoawait autocall automagic bookmark cat cd code_wrap colors conda config cp
    debug dhist dirs doctest_mode ed edit env gui hist history killbgscripts ldir lf lk ll load
    load_ext loadpy logoff logon logstart logstate logstop ls lsmagic lx macro magic mamba matplotlib
    micromamba mkdir mv notebook page pastebin pdb pdef pdoc pfile pinfo pinfo2 pip popd pprint
    precision prun psearch psource pushd pwd pycat pylab quickref recall rehashx reload_ext rep rerun
    reset reset_selective rm rmdir run save sc set_env sx system tb time timeit unalias unload_ext uv
    who who_ls whos xdel xmode""".split()
)


@dataclass
class _Scanner:
    """Where the next line starts: inside a string, inside brackets, or after a backslash."""

    quote: str | None = None  # the delimiter of the string still open at the end of the line
    depth: int = 0
    continued: bool = False

    @property
    def at_statement_start(self) -> bool:
        """True when the next line can begin a new statement."""
        return self.quote is None and self.depth == 0 and not self.continued

    def feed(self, line: str) -> None:
        """Advance over one line of Python code (without its newline)."""
        position, length, comment = 0, len(line), False
        while position < length:
            char = line[position]
            if self.quote is not None:
                if char == "\\":
                    position += 2
                elif line.startswith(self.quote, position):
                    position += len(self.quote)
                    self.quote = None
                else:
                    position += 1
                continue
            if char == "#":
                comment = True
                break
            if char in "'\"":
                self.quote = line[position : position + 3] if line[position : position + 3] in _TRIPLES else char
                position += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            position += 1
        escaped_end = _ends_with_escape(line.rstrip("\r"))
        if self.quote in ("'", '"') and not escaped_end:
            self.quote = None  # an unterminated one-line string: the parser reports it
        self.continued = self.quote is None and not comment and escaped_end


def _ends_with_escape(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def is_magic(line: str) -> bool:
    """True for a line that is IPython syntax when it starts a statement."""
    return bool(_ESCAPE.search(line) or is_shell_assignment(line) or _HELP.match(line))


def automagic_line(source: str) -> int | None:
    """The index of the line IPython runs as a magic without its `%` (automagic), or None.

    IPython does so only for a cell of one line (leading blank lines dropped, one trailing newline
    allowed; measured with ``InteractiveShell.transform_cell``) whose first word names a line magic
    and that is not Python already (``pip = 3`` stays an assignment, ``ls`` a name).
    """
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or any(line for line in lines[first + 1 :]) or len(lines) - first > 2:
        return None
    line = lines[first]
    if line.lstrip().split(" ", 1)[0] not in AUTOMAGIC_NAMES:
        return None
    try:
        parse_module(line.strip())
    except SyntaxError:
        return first
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def mask_cell(source: str) -> tuple[str, dict[str, str]]:
    """Comment out magics, shell lines and help lines, keeping every line's length.

    Returns the masked source and a map from each masked line back to its original.
    """
    lines = source.split("\n")
    masked: dict[str, str] = {}
    first = lines[0].lstrip() if lines else ""
    whole_cell = first.startswith("%%") and (first[2:].split() or [""])[0] not in PYTHON_CELL_MAGICS
    scanner = _Scanner()
    out = []
    continued_magic = False  # the previous line was IPython syntax ending in a backslash
    opens_block = False  # the previous code line ends with `:` (an `if x:` whose body may be a magic)
    automagic = automagic_line(source)
    for position, line in enumerate(lines):
        magic = whole_cell or (position == 0 and first.startswith("%%")) or continued_magic or position == automagic
        magic = magic or (scanner.at_statement_start and is_magic(line))
        call_escape = not magic and scanner.at_statement_start and bool(_CALL_ESCAPE.match(line))
        if call_escape or (magic and line.strip()):
            # IPython makes a call escape an expression statement where it stands (a call, a tuple
            # of strings): a no-op statement keeps the block it may be the only body of.
            statement = call_escape or (opens_block and not whole_cell)
            replacement = _block_body(line) if statement else _comment(line)
            masked[replacement] = line
            out.append(replacement)
            continued_magic = _ends_with_escape(line.rstrip("\r"))
            opens_block = False
        else:
            continued_magic = False
            scanner.feed(line)
            out.append(line)
            code = line.split("#", 1)[0].rstrip()
            if code:
                opens_block = code.endswith(":") and scanner.at_statement_start
    return "\n".join(out), masked


def _comment(line: str) -> str:
    """The line as a comment of the same length."""
    return line if line.startswith("#") else "#" + line[1:]


def _block_body(line: str) -> str:
    """A magic that is a block's body (`if x:` + `!pip install y`) as `0#...`, same length.

    A comment alone would leave the block empty (`expected an indented block`); the constant
    expression `0` is a statement that does nothing.
    """
    indent = line[: len(line) - len(line.lstrip())]
    body = line[len(indent) :]
    return indent + ("0#" + body[2:] if len(body) >= 2 else "0")


def leading_indent(source: str) -> str:
    """The indentation of a cell's first non-blank line: what IPython removes from every line."""
    first = next((line for line in source.split("\n") if line.strip()), "")
    return first[: len(first) - len(first.lstrip())]


def dedent_cell(source: str) -> tuple[str, dict[str, str]]:
    """IPython's leading-indent rule: the first line's indentation is removed from every line.

    Returns the dedented source and a map from each changed line back to its original.
    """
    lines = source.split("\n")
    prefix = leading_indent(source)
    if not prefix:
        return source, {}
    out, originals = [], {}
    for line in lines:
        new = line.removeprefix(prefix)
        if new != line:
            originals[new] = line
        out.append(new)
    return "\n".join(out), originals


def quarantine_cell(source: str) -> tuple[str, dict[str, str]]:
    """Every line of a cell that does not parse, as a comment of the same length (and the map back)."""
    lines = source.split("\n")
    masked = {_comment(line): line for line in lines if line.strip()}
    return "\n".join(_comment(line) if line.strip() else line for line in lines), masked
