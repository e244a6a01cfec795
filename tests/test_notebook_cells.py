"""The one lenient reader of a notebook's cells: numbers count every cell, what is not text is skipped."""

from __future__ import annotations

from fixer.notebook_cells import cells_of_type, code_sources


def test_cells_are_numbered_among_all_cells_and_lists_are_joined():
    data = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Title\n", "text"]},
            {"cell_type": "code", "source": ["import os\n", "print(1)"]},
            {"cell_type": "code", "source": "x = 1"},
        ]
    }
    assert code_sources(data) == [(2, "import os\nprint(1)"), (3, "x = 1")]
    assert [(n, s) for n, s, _ in cells_of_type(data, "markdown")] == [(1, "# Title\ntext")]


def test_what_is_not_text_is_skipped_not_raised():
    data = {
        "cells": [
            "not a cell",
            {"cell_type": "code", "source": 5},
            {"cell_type": "code", "source": ["a = 1\n", 7, "b = 2"]},
            {"cell_type": "code"},
        ]
    }
    assert code_sources(data) == [(3, "a = 1\nb = 2"), (4, "")]
    assert code_sources({"cells": "nope"}) == [] and code_sources(["cells"]) == []


def test_a_source_list_with_non_text_parts_keeps_its_text_parts():
    # Joined at once when every part is text; a part that is not text is skipped, not an error.
    data = {
        "cells": [{"cell_type": "code", "source": ["a = 1\n", 2, "b = 2\n"]}, {"cell_type": "code", "source": ["c\n"]}]
    }
    assert code_sources(data) == [(1, "a = 1\nb = 2\n"), (2, "c\n")]
