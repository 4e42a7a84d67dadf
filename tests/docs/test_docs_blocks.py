"""How the docs' examples are read (tests/docs_examples.py), and a rule for all pages: a reader who types
every page into one project never has one page's file overwrite another's."""

from __future__ import annotations

from ..docs_examples import ROOT, chains, docs_pages, page_blocks

PAGE = """Intro.

```python title="docs_x/__init__.py"
X = 1
```

A first example:

```python
import docs_x
```

Then more. Continuing the block above:

```python
assert docs_x.X == 1
```

Settings:

```yaml
a: 1
```

Another, alone:

```python
Y = 2
```
"""


def test_a_block_continues_the_nearest_untitled_python_block_only_when_it_says_so() -> None:
    blocks = page_blocks(PAGE)
    assert [(b.kind, b.title, b.continues) for b in blocks] == [
        ("python", "docs_x/__init__.py", False),
        ("python", "", False),
        ("python", "", True),
        ("yaml", "", False),
        ("python", "", False),
    ]
    assert [b.line for b in blocks] == [4, 10, 16, 22, 28]
    assert [[b.code for b in chain] for chain in chains(blocks)] == [
        ["import docs_x\n", "assert docs_x.X == 1\n"],
        ["Y = 2\n"],
    ]


def test_no_two_pages_write_the_same_package() -> None:
    owners: dict[str, set[str]] = {}
    for page in [*docs_pages(), ROOT / "README.md"]:
        for block in page_blocks(page.read_text()):
            # config/*.yaml blocks are settings to merge into the project's own file, not files of a page
            if block.title and not block.title.startswith("config/"):
                owners.setdefault(block.title.split("/")[0], set()).add(page.name)
    shared = {package: sorted(pages) for package, pages in owners.items() if len(pages) > 1}
    assert not shared, f"pages writing the same package (rename one): {shared}"
