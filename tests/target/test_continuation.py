"""One joiner of backslash continuations for Dockerfiles, notebook lines and README code."""

from __future__ import annotations

from fixer.target.continuation import joined_lines, logical_lines
from fixer.target.readme import code_lines
from fixer.target.sources import read_dockerfile


def test_logical_lines_keep_the_pieces_and_number_each_by_its_first_line():
    text = "RUN apt-get update && \\\n    pip install tensorflow==2.9.1\nENV A=1\nRUN echo \\"
    assert logical_lines(text) == [
        (1, "RUN apt-get update &&      pip install tensorflow==2.9.1"),
        (3, "ENV A=1"),
        (4, "RUN echo "),  # a last line still continued closes the run
    ]


def test_stripped_pieces_for_readme_code():
    lines = [(10, "docker run --rm \\"), (11, "  tensorflow/tensorflow:2.4.0-gpu \\"), (14, "python train.py")]
    assert joined_lines(lines, strip=True) == [(10, "docker run --rm tensorflow/tensorflow:2.4.0-gpu python train.py")]
    readme = "```\ndocker run --rm \\\n    tensorflow/tensorflow:2.4.0-gpu\n```\n"
    assert code_lines(readme) == [(2, "docker run --rm tensorflow/tensorflow:2.4.0-gpu")]


def test_a_dockerfile_instruction_continued_over_lines_is_read_at_its_first_line():
    (found,) = read_dockerfile("FROM python:3.10\nRUN pip install \\\n  numpy \\\n  'tensorflow==2.11.*'\n", "Dockerfile")
    assert found.line == 2 and found.allowed.newest() == (2, 11)
