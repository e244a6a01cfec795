"""The jinja2 environment over ``templates/``: rule docs, reports and generated snippets."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import jinja2


def templates_dir() -> Path:
    """The ``templates/`` folder: ``fixer/templates`` when installed (the wheel maps the root
    folder there), else the repository root's ``templates/`` in a checkout."""
    installed = Path(str(resources.files("fixer") / "templates"))
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=2)
def environment(autoescape: bool = False) -> jinja2.Environment:
    """A strict environment (undefined names fail loudly); HTML templates get autoescaping and
    the filters that show distfix's Markdown as HTML."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=autoescape,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    if autoescape:
        from fixer.output.markdown_html import code_spans, markdown_to_html

        env.filters["code_spans"] = code_spans
        env.filters["markdown"] = markdown_to_html
    return env


def render(template: str, **values: object) -> str:
    """Render ``templates/<template>`` with ``values`` (HTML templates are autoescaped)."""
    return environment(template.endswith(".html.j2")).get_template(template).render(**values)
