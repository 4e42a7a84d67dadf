"""Markdown prompt files: front matter, Jinja2 bodies, and malformed files named by path and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh_framework.prompts import PromptFileError, load_prompt_file, load_prompt_folder

GOOD = """---
name: review
description: Review code
arguments:
  - name: code
    required: true
  - name: language
    values: [python, go]
---
Review this {{ language or "code" }}:
{{ code }}
"""


def write(tmp_path: Path, text: str, name: str = "p.md") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_prompt_file_reads_its_front_matter_and_renders_its_body(tmp_path: Path) -> None:
    prompt = load_prompt_file(write(tmp_path, GOOD))
    assert prompt.name == "review"
    assert [a.descriptor() for a in prompt.arguments] == [
        {"name": "code", "required": True},
        {"name": "language", "required": False},
    ]
    assert prompt.arguments[1].choices == ("python", "go")
    assert prompt.render({"code": "x = 1", "language": "python"}) == "Review this python:\nx = 1"
    assert prompt.render({"code": "x = 1"}) == "Review this code:\nx = 1"


def test_the_name_defaults_to_the_file_name(tmp_path: Path) -> None:
    prompt = load_prompt_file(write(tmp_path, "---\ndescription: d\n---\nHello\n", "hello_there.md"))
    assert (prompt.name, prompt.description, prompt.arguments) == ("hello_there", "d", ())


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("no front matter\n", 1, "starts with YAML front matter"),
        ("---\nname: x\nBody\n", 1, "never closed"),
        ("---\nname: x\ndescription: [unclosed\n---\nBody\n", 3, "invalid YAML"),
        ("---\nname: x\ndescripton: typo\n---\nBody\n", 3, "unknown front matter key(s) descripton"),
        ("---\nname: x y\n---\nBody\n", 2, "name 'x y' is invalid"),
        (
            "---\narguments:\n  - name: a\n  - name: b\n    requird: true\n---\nB\n",
            4,
            "unknown argument key(s) requird",
        ),
        ("---\narguments:\n  - name: a\n    required: maybe\n---\nB\n", 3, "required must be true or false"),
        ("---\narguments:\n  - name: a\n  - name: a\n---\nB\n", 4, "declared twice"),
        ("---\nname: x\n---\nline one\n{% if a %}\nunclosed\n", 5, "template syntax error"),
        ("---\nname: x\n---\nfirst\nHello {{ who }}\n", 5, "uses 'who'"),
        ("---\n- a list\n---\nBody\n", 2, "must be a mapping"),
    ],
)
def test_a_malformed_file_is_named_with_its_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(PromptFileError) as caught:
        load_prompt_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message


def test_a_folder_reports_every_broken_file_and_keeps_the_good_ones(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "a.md")
    (tmp_path / "nested").mkdir()
    write(tmp_path / "nested", "oops\n", "b.md")
    write(tmp_path, "---\nname: [\n---\nx\n", "c.md")
    write(tmp_path, "not a prompt", "notes.txt")
    prompts, problems = load_prompt_folder(tmp_path)
    assert [p.name for p in prompts] == ["review"]
    assert len(problems) == 2
    assert "b.md:1:" in problems[1] and "c.md:" in problems[0]


def test_invalid_front_matter_is_described_as_the_python_parser_says(tmp_path: Path) -> None:
    """libyaml reads the front matter when PyYAML has it; what it refuses is described by the Python
    parser (whose wording and line the messages have always used)."""
    path = write(tmp_path, "---\nname: x\ndescription: [unclosed\n---\nBody\n")
    with pytest.raises(PromptFileError) as caught:
        load_prompt_file(path)
    assert str(caught.value) == (
        f"{path}:3: invalid YAML front matter: while parsing a flow sequence, expected ',' or ']', but got "
        "'<stream end>'"
    )
