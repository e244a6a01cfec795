"""The line reader the CI readers share (fixer/target/yaml_lines.py): indentation, keys and
values, list items, block scalars' text, comments and anchors in a GitHub Actions workflow."""

from __future__ import annotations

from fixer.target.yaml_lines import YamlLine, block, parent, yaml_lines

WORKFLOW = """\
# a workflow
defaults: &defaults
  shell: bash
jobs:
  test:
    container: &image tensorflow/tensorflow:${{ matrix.tf }}-py3  # the tested image
    strategy:
      matrix:
        tf: [2.4.0, 2.5.0]
        python:
          - "3.8"
          - '3.9'
    steps:
      # checkout first
      - uses: actions/checkout@v4
      - name: tests
        <<: *defaults
        run: |
          # a comment of the script, not of the YAML
          - not: a list item

          TF_USE_LEGACY_KERAS=1 python train.py
        env: {CI: "1"}
      - run: >-
          echo folded
  lint:
    runs-on: ubuntu-latest
"""


def lines_by_number() -> dict[int, YamlLine]:
    return {line.number: line for line in yaml_lines(WORKFLOW)}


def test_blank_and_comment_lines_are_left_out() -> None:
    numbers = lines_by_number()
    assert 1 not in numbers  # `# a workflow`
    assert 14 not in numbers  # `# checkout first`, a YAML comment between steps
    assert 21 not in numbers  # the blank line inside the block scalar


def test_indentation_keys_and_values() -> None:
    line = lines_by_number()[9]
    assert (line.indent, line.key, line.value, line.item) == (8, "tf", "[2.4.0, 2.5.0]", False)
    step = lines_by_number()[16]
    assert (step.item, step.key, step.value, step.key_column) == (True, "name", "tests", 8)


def test_matrix_block_list_items() -> None:
    numbers = lines_by_number()
    assert [(numbers[n].item, numbers[n].key, numbers[n].text) for n in (11, 12)] == [
        (True, None, '- "3.8"'),
        (True, None, "- '3.9'"),
    ]
    python = next(i for i, line in enumerate(yaml_lines(WORKFLOW)) if line.key == "python")
    assert [line.text for line in block(yaml_lines(WORKFLOW), python)] == ["python:", '- "3.8"', "- '3.9'"]


def test_block_scalar_text_is_no_structure() -> None:
    numbers = lines_by_number()
    script = [numbers[n] for n in (19, 20, 22)]
    assert all(line.in_scalar for line in script)
    assert [(line.item, line.key, line.value) for line in script] == [(False, None, "")] * 3
    assert numbers[23].key == "env" and not numbers[23].in_scalar  # the step's next key ends the script
    assert numbers[25].in_scalar and numbers[26].key == "lint"  # a folded scalar (`>-`) too


def test_a_script_line_is_nested_in_its_key_and_step() -> None:
    lines = yaml_lines(WORKFLOW)
    setting = next(i for i, line in enumerate(lines) if "TF_USE_LEGACY_KERAS" in line.text)
    run = parent(lines, setting)
    assert run is not None and lines[run].key == "run"
    step = parent(lines, run)
    assert step is not None and lines[step].item and lines[step].key == "name"
    steps = parent(lines, step)
    assert steps is not None and lines[steps].key == "steps"
    assert [line.number for line in block(lines, step)] == [16, 17, 18, 19, 20, 22, 23]


def test_anchors_tags_and_aliases() -> None:
    numbers = lines_by_number()
    assert (numbers[2].key, numbers[2].value) == ("defaults", "")  # `&defaults` names the mapping
    assert numbers[6].value == "tensorflow/tensorflow:${{ matrix.tf }}-py3  # the tested image"
    assert numbers[17].key is None and not numbers[17].in_scalar  # `<<: *defaults`: no key read
    tagged = yaml_lines("run: &script !!str |\n  python a.py\nnext: 1\n")
    assert [(line.key, line.in_scalar) for line in tagged] == [("run", False), (None, True), ("next", False)]


def test_top_level_lines_have_no_parent() -> None:
    lines = yaml_lines(WORKFLOW)
    assert parent(lines, 0) is None
    jobs = next(i for i, line in enumerate(lines) if line.key == "jobs")
    assert parent(lines, jobs) is None
    assert block(lines, len(lines) - 1) == [lines[-1]]
