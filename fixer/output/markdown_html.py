"""The little Markdown that distfix writes (rule docs, finding messages) as HTML, for the
self-contained migration report: headings, paragraphs, ``- `` lists, fenced code, `code` and
*emphasis*.
Everything is escaped first, so no text can inject markup."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def code_spans(text: str) -> Markup:
    """``text`` escaped, with `backticks` as <code> and *stars* as <em>."""
    escaped = str(escape(text))
    escaped = _CODE_SPAN.sub(r"<code>\1</code>", escaped)
    return Markup(_EMPHASIS.sub(r"<em>\1</em>", escaped))


def markdown_to_html(text: str, heading_offset: int = 2) -> Markup:
    """Block-level rendering: ``#`` headings (shifted down by ``heading_offset`` levels, to sit
    under the report's own), fenced code as <pre>, ``- `` items as a list, other runs of lines
    as paragraphs (a line indented under an item continues it)."""
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    code: list[str] | None = None

    def end_paragraph() -> None:
        if paragraph:
            blocks.append(f"<p>{code_spans(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{code_spans(item)}</li>" for item in items) + "</ul>")
            items.clear()

    for line in text.splitlines():
        if line.startswith("```"):
            if code is None:
                end_paragraph()
                code = []
            else:
                blocks.append(f"<pre>{escape(chr(10).join(code))}</pre>")
                code = None
        elif code is not None:
            code.append(line)
        elif (heading := _HEADING.match(line)) is not None:
            end_paragraph()
            level = min(len(heading.group(1)) + heading_offset, 6)
            blocks.append(f"<h{level}>{code_spans(heading.group(2))}</h{level}>")
        elif not line.strip():
            end_paragraph()
        elif line.startswith("- "):
            if paragraph:
                end_paragraph()
            items.append(line[2:].strip())
        elif items and line.startswith(" "):
            items[-1] += " " + line.strip()
        else:
            if items:
                end_paragraph()
            paragraph.append(line.strip())
    end_paragraph()
    if code is not None:  # an unclosed fence: show what there is
        blocks.append(f"<pre>{escape(chr(10).join(code))}</pre>")
    return Markup("\n".join(blocks))
