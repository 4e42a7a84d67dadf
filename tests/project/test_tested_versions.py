"""Dependencies whose private parts the framework uses: pinned in pyproject.toml to the tested versions,
and on other versions either a clear start-up error (uvicorn) or the public path (httpx2's own network
layer, openai's `create`: see tests/llm/test_llm_vendors.py)."""

from __future__ import annotations

import asyncio
import logging
import tomllib
from collections.abc import AsyncIterator, Iterator

import dependency_injector
import httpx2
import pytest
import uvicorn

from mesh_framework.errors import MeshError
from mesh_framework.mesh import asyncio_network
from mesh_framework.mesh.asyncio_network import AsyncioStream
from mesh_framework.mesh.http_pool import build_http_client
from mesh_framework.protocol.http_protocol import agent_http_protocol
from mesh_framework.tested_versions import TESTED, is_tested, requirement

from ..agents import ROOT


def test_pyproject_pins_each_package_to_its_tested_versions() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [
        *project["dependencies"],
        *(d for ds in project["optional-dependencies"].values() for d in ds),
    ]
    for package in TESTED:
        assert requirement(package) in declared, f"pyproject.toml should require {requirement(package)}"


def test_the_installed_versions_are_tested_ones() -> None:
    import openai  # here, not at collection: the SDK is slow to import

    installed = {
        "uvicorn": uvicorn.__version__,
        "httpx2": httpx2.__version__,
        "openai": openai.__version__,
        "dependency-injector": dependency_injector.__version__,
    }
    assert set(installed) == set(TESTED)
    for package, version in installed.items():
        assert is_tested(package, version), (package, version)


@pytest.mark.parametrize(
    ("version", "tested"),
    [
        ("0.54.0", True),
        ("0.54.12", True),
        ("0.55.0", False),
        ("0.53.9", False),
        ("1.0", False),
        ("dev", False),
    ],
)
def test_tested_range_is_by_minor_version(version: str, tested: bool) -> None:
    assert is_tested("uvicorn", version) is tested


def test_an_untested_uvicorn_stops_start_up_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uvicorn, "__version__", "0.60.0")
    with pytest.raises(MeshError) as raised:
        agent_http_protocol(5.0)
    message = str(raised.value)
    assert "uvicorn 0.60.0 is installed" in message
    assert "HttpToolsProtocol" in message
    assert "'uvicorn>=0.54,<0.55'" in message


@pytest.fixture
def fresh_check() -> Iterator[None]:
    asyncio_network._backend_replaceable.cache_clear()
    yield
    asyncio_network._backend_replaceable.cache_clear()


@pytest.fixture
async def echo() -> AsyncIterator[str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()


@pytest.mark.usefixtures("fresh_check")
async def test_an_untested_httpx2_keeps_its_own_network_layer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, echo: str
) -> None:
    monkeypatch.setattr(httpx2, "__version__", "2.20.0")
    with caplog.at_level(logging.WARNING, "mesh_framework.mesh.asyncio_network"):
        async with build_http_client() as http, build_http_client() as other:
            answer = await http.get(echo)
            await other.get(echo)
    assert answer.text == "ok"
    assert not isinstance(answer.extensions["network_stream"], AsyncioStream)
    (warning,) = caplog.records  # once per process
    assert "httpx2 2.20.0 is installed" in warning.getMessage()
    assert "using httpx2's own network layer" in warning.getMessage()


@pytest.mark.usefixtures("fresh_check")
async def test_a_tested_httpx2_runs_on_asyncio_streams(echo: str) -> None:
    async with build_http_client() as http:
        answer = await http.get(echo)
    assert isinstance(answer.extensions["network_stream"], AsyncioStream)
