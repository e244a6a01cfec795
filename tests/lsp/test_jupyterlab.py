"""The JupyterLab set-up of docs/lsp.md, end to end: JupyterLab with jupyterlab-lsp and the documented
`docs/jupyterlab/jupyter_server_config.py`, a notebook holding a TFD401 mistake, opened in headless
Debian Chromium driven by selenium; the test waits until distfix's diagnostic is rendered in the cell.

Chromium and its driver come from Debian (`make browser` installs them when it can); without them the
test skips and says why.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (dev extra)")
pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (dev extra)")
pytest.importorskip("jupyter_lsp", reason="jupyterlab-lsp is not installed (dev extra)")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docs" / "jupyterlab" / "jupyter_server_config.py"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Bounds for waits on events, generous for a loaded machine; a passing run takes about 15 s.
START_BOUND = 120
RENDER_BOUND = 120

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver): `make browser` installs them as root",
    ),
]

CELLS = [
    "import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()",
    # A magic before the mistake: jupyterlab-lsp sends it as a get_ipython() call.
    "%matplotlib inline\nresult = strategy.experimental_run_v2(lambda: 1)",
]


def _notebook() -> dict:
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"cell{n}", "metadata": {}, "outputs": [], "source": text}
            for n, text in enumerate(CELLS)
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab serving a folder with `mistake.ipynb`, configured by the documented file; its URL."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "mistake.ipynb").write_text(json.dumps(_notebook()))
    port, token = _free_port(), secrets.token_hex(16)
    home = tmp_path / "home"
    env = dict(
        os.environ,
        # The config starts `sys.executable -m fixer lsp`: this checkout's distfix.
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        HOME=str(home),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
    )
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebooks}",
        f"--config={CONFIG}",
        # Only the documented distfix spec: no other Python language server found on the machine.
        "--LanguageServerManager.autodetect=False",
        # window.jupyterapp, to open the diagnostics panel by its command.
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    lab = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log: list[str] = []
    running = threading.Event()

    def drain() -> None:  # reads the log to the end, so the server never blocks on a full pipe
        for line in lab.stderr:
            log.append(line)
            if "is running at" in line:
                running.set()
        running.set()  # exited: stop waiting

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        running.wait(START_BOUND)
        assert lab.poll() is None and any("is running at" in line for line in log), "JupyterLab did not start:\n" + "".join(log)
        yield f"http://127.0.0.1:{port}/lab/tree/mistake.ipynb?token={token}"
    finally:
        lab.terminate()
        lab.wait(60)
        reader.join(60)
    assert not (notebooks / ".virtual_documents").exists(), "requires_documents_on_disk: False keeps the folder clean"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=1400,1000", f"--user-data-dir={tmp_path / 'chromium'}",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def test_notebook_mistake_is_underlined_with_the_distfix_diagnostic(jupyterlab: str, browser: webdriver.Chrome) -> None:
    browser.get(jupyterlab)
    # The lint range jupyterlab-lsp draws from distfix's diagnostic (CodeMirror's lint extension).
    marked = WebDriverWait(browser, RENDER_BOUND).until(
        expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, ".jp-Notebook .cm-lintRange"))
    )
    assert marked.text == "experimental_run_v2"
    assert "cm-lintRange-warning" in marked.get_attribute("class")  # TFD401 is a warning (fixer/codes.py)
    # Its tooltip, on hover, carries distfix's message.
    ActionChains(browser).move_to_element(marked).perform()
    tooltip = WebDriverWait(browser, RENDER_BOUND).until(
        expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, ".cm-tooltip-lint .cm-diagnostic"))
    )
    assert "`experimental_run_v2` is removed in TensorFlow" in tooltip.text and "distfix" in tooltip.text, tooltip.text
    # Only the mistake is marked: the magic line and the first cell are not.
    assert [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".jp-Notebook .cm-lintRange")] == ["experimental_run_v2"]
    # The diagnostics panel lists it with its rule code.
    marked.click()
    browser.execute_script("return window.jupyterapp.commands.execute('lsp:show-diagnostics-panel')")
    WebDriverWait(browser, RENDER_BOUND).until(
        expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".lsp-diagnostics-listing"), "TFD401")
    )
    listing = browser.find_element(By.CSS_SELECTOR, ".lsp-diagnostics-listing").text
    assert "distfix" in listing and "`experimental_run_v2` is removed" in listing, listing
