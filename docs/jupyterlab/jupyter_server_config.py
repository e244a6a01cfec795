"""JupyterLab set-up for distfix: jupyterlab-lsp starts `distfix lsp` for Python notebooks and files.

Copy this file into a Jupyter config folder (`jupyter --config-dir`, e.g. ~/.jupyter/) or pass it
with `jupyter lab --config=jupyter_server_config.py`. See docs/lsp.md, section "JupyterLab".
"""

import sys

c = get_config()  # noqa: F821 - provided by Jupyter when it loads this file

c.LanguageServerManager.language_servers = {
    "distfix": {
        "display_name": "distfix",
        # The Python that runs JupyterLab runs distfix too, so `pip install distfix` in that
        # environment is all it needs (no `distfix` on PATH required).
        "argv": [sys.executable, "-m", "fixer", "lsp"],
        "languages": ["python"],
        "mime_types": ["text/x-python", "text/x-ipython"],
        "version": 2,
        # distfix reads the text JupyterLab sends; no copies under .virtual_documents/ on disk.
        "requires_documents_on_disk": False,
    }
}
