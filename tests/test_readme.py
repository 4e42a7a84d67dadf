"""The README's test example runs as written."""

from __future__ import annotations

import re

from .agents import ROOT


async def test_the_readme_testing_example_runs() -> None:
    text = (ROOT / "README.md").read_text()
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "async def test_" in b]
    namespace: dict[str, object] = {"__name__": "readme_example"}
    exec(compile(block, "README.md", "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_") and callable(value)]
    assert tests
    for test in tests:
        await test()  # type: ignore[operator]
