"""The embedded registry on real sockets: in this event loop, and as `python -m mesh_framework.registry`."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import signal
import sys
from pathlib import Path

import httpx2
import pytest

from mesh_framework.registry import RegistryServer, start_registry
from tests.registry.test_registry import ADDER, CALC


async def test_in_loop_server_sweeps_silent_providers(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mesh_framework.registry")
    registry = await start_registry("127.0.0.1", 0, timeout=0.4, check_interval=0.05)
    try:
        assert registry.url == f"http://127.0.0.1:{registry.port}"
        assert f"registry serving {registry.url}" in caplog.messages
        async with httpx2.AsyncClient(base_url=registry.url, trust_env=False, timeout=5) as http:
            assert (await http.post("/heartbeat", json=ADDER)).status_code == 200
            body = (await http.post("/heartbeat", json=CALC)).json()
            assert body["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-0001"
            statuses: list[int] = []
            for _ in range(40):  # the consumer keeps heartbeating; the provider went silent
                await asyncio.sleep(0.05)
                statuses.append((await http.head("/heartbeat/calc-0001")).status_code)
                if statuses[-1] != 200:
                    break
            assert statuses[-1] == 202, statuses
            assert (await http.head("/heartbeat/adder-0001")).status_code == 410
    finally:
        await registry.stop()


async def test_port_in_use_is_an_os_error() -> None:
    async with RegistryServer("127.0.0.1", 0) as first:
        assert first.port is not None
        with pytest.raises(OSError, match="cannot listen"):
            await start_registry("127.0.0.1", first.port)


async def _start_subprocess(database: Path) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mesh_framework.registry",
        "--port",
        "0",
        "--db",
        str(database),
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    for _ in range(50):
        line = (await asyncio.wait_for(process.stderr.readline(), 15)).decode()
        lines.append(line)
        match = re.search(r"registry serving (http://127\.0\.0\.1:\d+)", line)
        if match:
            return process, match.group(1)
        if not line:
            break
    process.kill()
    await process.wait()
    raise AssertionError(f"the registry did not log its URL: {lines}")


async def _stop_subprocess(process: asyncio.subprocess.Process) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return await asyncio.wait_for(process.wait(), 10)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise


async def test_subprocess_registry_survives_its_restart(tmp_path: Path) -> None:
    database = tmp_path / "registry.db"
    process, url = await _start_subprocess(database)
    try:
        async with httpx2.AsyncClient(base_url=url, trust_env=False, timeout=5) as http:
            assert (await http.get("/health")).json()["service"] == "mcp-mesh-registry"
            await http.post("/heartbeat", json=copy.deepcopy(ADDER))
            await http.post("/heartbeat", json=copy.deepcopy(CALC))
    finally:
        assert await _stop_subprocess(process) == 0

    process, url = await _start_subprocess(database)
    try:
        async with httpx2.AsyncClient(base_url=url, trust_env=False, timeout=5) as http:
            assert (await http.head("/heartbeat/calc-0001")).status_code == 200
            listing = (await http.get("/agents")).json()
            assert [a["id"] for a in listing["agents"]] == ["adder-0001", "calc-0001"]
    finally:
        assert await _stop_subprocess(process) == 0
