"""The dependencies whose private parts the framework uses, and the versions it was tested with.

Each use is explained in docs/decisions.md ("Private parts of dependencies"). `pyproject.toml` bounds each
package to the same range (a test keeps the two in step). An installed version outside it either stops
start-up with a message saying what to install, or makes the framework take the public path.
"""

from __future__ import annotations

import re

__all__ = ["TESTED", "is_tested", "requirement", "untested_message"]

TESTED: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    # protocol/http_protocol.py extends uvicorn's HttpToolsProtocol and swaps its transport.
    "uvicorn": ((0, 54), (0, 55)),
    # mesh/asyncio_network.py replaces the network backend of httpx2's pool (httpx2 pins its httpcore2).
    "httpx2": ((2, 16), (2, 17)),
    # di/lazy_integrations.py replaces the checks dependency_injector.wiring makes for FastAPI, Werkzeug and
    # FastDepends with ones that do not import them.
    "dependency-injector": ((4, 49), (4, 50)),
    # llm/vendors/openai.py posts the chat request with `client.post` (skipping `create`'s transform).
    "openai": ((3, 51), (3, 55)),
}
"""Package -> (lowest tested minor version, first untested one)."""

_MINOR = re.compile(r"(\d+)\.(\d+)")


def is_tested(package: str, version: str) -> bool:
    """Whether `version` of `package` lies in its tested range."""
    low, high = TESTED[package]
    found = _MINOR.match(version)
    if found is None:
        return False
    minor = (int(found[1]), int(found[2]))
    return low <= minor < high


def requirement(package: str) -> str:
    """The requirement of the tested range: `uvicorn>=0.54,<0.55`."""
    (low_major, low_minor), (high_major, high_minor) = TESTED[package]
    return f"{package}>={low_major}.{low_minor},<{high_major}.{high_minor}"


def untested_message(package: str, version: str, use: str) -> str:
    """`uvicorn 0.60.0 is installed; mesh_framework <use> and is tested with 'uvicorn>=0.54,<0.55'`."""
    return (
        f"{package} {version} is installed; mesh_framework {use}, and is tested with "
        f"'{requirement(package)}': install that ({package} outside it may have changed what is used)"
    )
