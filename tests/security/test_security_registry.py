"""Registry authentication (`registry.token`) and TLS (`tls.*`) on real sockets: the embedded registry
checks the token and serves HTTPS, optionally asking for client certificates; agents send the token and
verify the registry's certificate against `tls.ca_file`. Certificates come from `trustme`, on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import trustme

from mesh_framework.config.settings import TlsSettings
from mesh_framework.mesh.heartbeat import RegistryClient, RegistryError
from mesh_framework.registry import RegistryServer, start_registry
from mesh_framework.security.tls import ServerTls, client_ssl_context, server_tls
from tests.agents import ROOT, run_agent, run_mesh, wait_until
from tests.mcp_servers import free_port
from tests.registry.test_registry import ADDER

TOKEN = "s3cret-registry-token-1234"


class Pki:
    def __init__(self, folder: Path) -> None:
        ca = trustme.CA()
        self.ca = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca))
        server = ca.issue_cert("127.0.0.1", "localhost")
        self.cert, self.key = folder / "server.pem", folder / "server.key"
        server.cert_chain_pems[0].write_to_path(str(self.cert))
        server.private_key_pem.write_to_path(str(self.key))
        client = ca.issue_cert("agent.example")
        self.client_cert, self.client_key = folder / "client.pem", folder / "client.key"
        client.cert_chain_pems[0].write_to_path(str(self.client_cert))
        client.private_key_pem.write_to_path(str(self.client_key))


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pki]:
    yield Pki(tmp_path_factory.mktemp("pki"))


async def test_registry_with_a_token_refuses_requests_without_it() -> None:
    async with (
        RegistryServer("127.0.0.1", 0, token=TOKEN) as registry,
        httpx2.AsyncClient(base_url=registry.url, trust_env=False, timeout=5) as http,
    ):
        missing = await http.post("/heartbeat", json=ADDER)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert "token is required" in missing.json()["message"]
        wrong = await http.post("/heartbeat", json=ADDER, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "not valid" in wrong.json()["message"]
        assert (await http.get("/agents")).status_code == 401
        assert (await http.head("/heartbeat/adder-0001")).status_code == 401
        assert (await http.get("/health")).status_code == 200  # probes need no token
        good = {"Authorization": f"Bearer {TOKEN}"}
        assert (await http.post("/heartbeat", json=ADDER, headers=good)).status_code == 200
        assert (await http.get("/agents", headers=good)).json()["count"] == 1
        assert TOKEN not in missing.text + wrong.text


async def test_agents_registry_client_sends_the_token_and_says_when_it_lacks_one() -> None:
    async with (
        RegistryServer("127.0.0.1", 0, token=TOKEN) as registry,
        httpx2.AsyncClient(trust_env=False) as http,
    ):
        answer = await RegistryClient(http, registry.url, 5, token=TOKEN).register(ADDER)
        assert answer["status"] == "success"
        with pytest.raises(RegistryError, match=r"requires a token \(HTTP 401\); set registry.token"):
            await RegistryClient(http, registry.url, 5).register(ADDER)
        with pytest.raises(RegistryError, match="refused the token") as refused:
            await RegistryClient(http, registry.url, 5, token="wrong-token").register(ADDER)
        assert "wrong-token" not in str(refused.value)


async def test_without_a_token_the_registry_listens_on_loopback_only() -> None:
    with pytest.raises(
        ValueError, match=r"will not listen on 0\.0\.0\.0 without a token: set registry\.token"
    ):
        await start_registry("0.0.0.0", 0)
    registry = await start_registry("0.0.0.0", 0, token=TOKEN)  # with a token it may
    await registry.stop()


def test_standalone_registry_refuses_a_public_bind_without_a_token_in_one_line() -> None:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "mesh_framework.registry", "--host", "0.0.0.0", "--port", "0"],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        "error: the embedded registry will not listen on 0.0.0.0 without a token: set registry.token "
        "(MESH_REGISTRY__TOKEN) so that agents must authenticate, or bind 127.0.0.1"
    ]


async def test_registry_over_tls_is_verified_against_the_ca_bundle(pki: Pki) -> None:
    tls = ServerTls(str(pki.cert), str(pki.key))
    async with RegistryServer("127.0.0.1", 0, ssl=tls, token=TOKEN) as registry:
        assert registry.url.startswith("https://127.0.0.1:")
        trusted = client_ssl_context(TlsSettings(ca_file=str(pki.ca)))
        async with httpx2.AsyncClient(trust_env=False, verify=trusted) as http:
            answer = await RegistryClient(http, registry.url, 5, token=TOKEN).register(ADDER)
            assert answer["agent_id"] == "adder-0001"
        # The client verifies by default: the system's CAs do not know this one.
        async with httpx2.AsyncClient(trust_env=False, verify=client_ssl_context(TlsSettings())) as http:
            with pytest.raises(RegistryError, match="CERTIFICATE_VERIFY_FAILED"):
                await RegistryClient(http, registry.url, 5, token=TOKEN).register(ADDER)


async def test_mutual_tls_wants_a_client_certificate(pki: Pki) -> None:
    settings = TlsSettings(
        cert_file=str(pki.cert), key_file=str(pki.key), ca_file=str(pki.ca), require_client_cert=True
    )
    tls = server_tls(settings)
    assert tls is not None and tls.client_ca_file == str(pki.ca)
    async with RegistryServer("127.0.0.1", 0, ssl=tls) as registry:
        anonymous = client_ssl_context(TlsSettings(ca_file=str(pki.ca)))
        async with httpx2.AsyncClient(trust_env=False, verify=anonymous, timeout=5) as http:
            with pytest.raises(httpx2.HTTPError):
                (await http.get(registry.url + "/health")).raise_for_status()
        identified = client_ssl_context(
            TlsSettings(
                ca_file=str(pki.ca),
                client_cert_file=str(pki.client_cert),
                client_key_file=str(pki.client_key),
            )
        )
        assert isinstance(identified, ssl.SSLContext)
        async with httpx2.AsyncClient(trust_env=False, verify=identified, timeout=5) as http:
            assert (await http.get(registry.url + "/health")).status_code == 200


def test_tls_settings_errors_say_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="tls.cert_file and tls.key_file go together"):
        server_tls(TlsSettings(cert_file="a.pem"))
    with pytest.raises(ValueError, match=r"tls.cert_file = '.*missing.pem': no such file"):
        server_tls(TlsSettings(cert_file=str(tmp_path / "missing.pem"), key_file=str(tmp_path / "k.pem")))
    with pytest.raises(ValueError, match="require_client_cert needs tls.ca_file"):
        server_tls(TlsSettings(cert_file="a", key_file="b", require_client_cert=True))
    assert client_ssl_context(TlsSettings(verify=False)) is False


def test_agents_over_mutual_tls_with_a_registry_token_call_each_other(pki: Pki) -> None:
    """The whole mesh on mutual TLS: `mesh registry` and two agents serve HTTPS and want a client
    certificate; every client verifies against the CA bundle and presents its own certificate; the
    registry wants the token and both agents send it."""
    secure = {
        "MESH_REGISTRY__TOKEN": TOKEN,
        "MESH_TLS__CERT_FILE": str(pki.cert),
        "MESH_TLS__KEY_FILE": str(pki.key),
        "MESH_TLS__CA_FILE": str(pki.ca),
        "MESH_TLS__REQUIRE_CLIENT_CERT": "true",
    }
    ours = ssl.create_default_context(cafile=str(pki.ca))  # the test's client: verifies, identifies itself
    ours.load_cert_chain(str(pki.client_cert), str(pki.client_key))
    anonymous = ssl.create_default_context(cafile=str(pki.ca))
    with run_mesh(["registry", "--port", "0", "--timeout", "3"], env=secure) as registry:
        assert registry.base_url.startswith("https://")
        env = {**secure, "MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
        with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env) as calculator:
            assert calculator.mcp_url.startswith("https://")
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "sum_of_squares", "arguments": {"a": 3, "b": 4}},
            }
            headers = {"Accept": "application/json, text/event-stream"}

            def answer() -> Any:
                result = httpx2.post(
                    calculator.mcp_url,
                    json=body,
                    headers=headers,
                    verify=ours,
                    timeout=15,
                ).json()["result"]
                return result if not result["isError"] else None

            assert wait_until(answer, timeout=15)["structuredContent"] == {"result": 25}  # type: ignore[index]
            listed = httpx2.get(
                registry.base_url + "/agents",
                headers={"Authorization": f"Bearer {TOKEN}"},
                verify=ours,
            ).json()
            assert all(agent["endpoint"].startswith("http") for agent in listed["agents"])
            with pytest.raises(httpx2.HTTPError):  # no client certificate, no answer
                httpx2.post(calculator.mcp_url, json=body, headers=headers, verify=anonymous, timeout=5)
            assert TOKEN not in registry.text() + calculator.text()


async def test_mesh_list_sends_the_registry_token_and_says_when_it_has_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What `mesh list`, `mesh status` and `mesh call` read the registry with."""
    from mesh_framework.cli.agents import fetch_agents
    from mesh_framework.cli.common import Unreachable

    async with RegistryServer("127.0.0.1", 0, token=TOKEN) as registry:
        monkeypatch.setenv("MESH_REGISTRY__TOKEN", TOKEN)
        assert (await fetch_agents(registry.url)).agents == []
        monkeypatch.delenv("MESH_REGISTRY__TOKEN")
        with pytest.raises(Unreachable, match=r"requires a token \(HTTP 401\); set registry.token"):
            await fetch_agents(registry.url)


def test_several_registry_urls_from_the_environment_or_yaml() -> None:
    from mesh_framework.config.settings import RegistrySettings

    assert RegistrySettings(url="http://a:1, http://b:2").endpoints() == ["http://a:1", "http://b:2"]
    assert RegistrySettings(urls="http://a:1,http://b:2", url="http://c:3").endpoints() == [  # type: ignore[arg-type]
        "http://a:1",
        "http://b:2",
    ]
    assert RegistrySettings().endpoints() == []


async def test_registry_urls_fail_over_in_a_ring_and_never_log_their_credentials(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="mesh_framework.mesh")
    closed = f"http://mesh:pa55word@127.0.0.1:{free_port()}"  # nothing listens there
    async with RegistryServer("127.0.0.1", 0) as registry, httpx2.AsyncClient(trust_env=False) as http:
        client = RegistryClient(http, [closed, registry.url], 5)
        with pytest.raises(RegistryError) as failed:
            await client.register(ADDER)
        assert client.url == registry.url  # moved on
        assert (await client.register(ADDER))["status"] == "success"
    assert "pa55word" not in str(failed.value) + caplog.text
    assert f"switching to {registry.url}" in caplog.text and "http://mesh:******@127.0.0.1:" in caplog.text


async def test_the_job_api_and_the_topology_stream_name_a_registry_without_its_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mesh_framework.jobs.client import JobApiError, RegistryJobClient
    from mesh_framework.mesh.subscription import TopologySubscription

    closed = f"http://mesh:pa55word@127.0.0.1:{free_port()}"
    async with httpx2.AsyncClient(trust_env=False) as http:
        with pytest.raises(JobApiError) as failed:
            await RegistryJobClient(http, closed, "masking-test").get("job-1")
    assert "pa55word" not in str(failed.value) and "mesh:******@127.0.0.1" in str(failed.value)
    # a registry without the topology stream (MCP Mesh's): the line saying so names it masked
    async with RegistryServer("127.0.0.1", 0) as registry:
        with_password = registry.url.replace("http://", "http://mesh:pa55word@")
        app_routes = registry.app.router.routes
        registry.app.router.routes = [r for r in app_routes if getattr(r, "path", "") != "/topology/stream"]
        async with httpx2.AsyncClient(trust_env=False) as http:
            subscription = TopologySubscription(
                http, lambda: with_password, "adder-0001", on_answer=lambda _: None, on_unknown=lambda: None
            )
            with caplog.at_level(logging.INFO, logger="mesh_framework.mesh"):
                assert await asyncio.wait_for(subscription._follow(), 10) is True  # no stream: heartbeat only
    assert "has no topology stream" in caplog.text
    assert "pa55word" not in caplog.text
