"""MCP authorization on a real agent process: static tokens and JWTs from a JWKS served on loopback,
the protected-resource metadata, 401/403 challenges as the MCP authorization spec words them, per-tool
scopes, Host checks still on, secrets masked, and a consumer sending a per-dependency token."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.agents import AgentProcess, loopback, run_agent, run_cli, run_registry, wait_until

MATH_TOKEN = "tok-math-1234567"
ADMIN_TOKEN = "tok-admin-7654321"
AUDIENCE = "urn:test:secured"
ISSUER = "https://auth.test"
ACCEPT = {"Accept": "application/json, text/event-stream"}


class Jwks:
    """A JWKS document on 127.0.0.1 (an ephemeral port), and a signer for tokens it vouches for."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        document = json.dumps({"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(document)))
                self.end_headers()
                self.wfile.write(document)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def token(self, scope: str, *, audience: str = AUDIENCE, expires_in: float = 300, key: Any = None) -> str:
        claims = {"sub": "user-1", "client_id": "app-1", "iss": ISSUER, "aud": audience, "scope": scope}
        claims["exp"] = int(time.time() + expires_in)
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": "k1"})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def auth_env(jwks: Jwks) -> dict[str, str]:
    tokens = [
        {"token": MATH_TOKEN, "scopes": ["math"], "client_id": "ci"},
        {"token": ADMIN_TOKEN, "scopes": ["math", "admin"], "client_id": "ops"},
    ]
    return {
        "MESH_AUTH__TOKENS": json.dumps(tokens),
        "MESH_AUTH__JWKS_URL": jwks.url,
        "MESH_AUTH__ISSUER": ISSUER,
        "MESH_AUTH__AUDIENCE": AUDIENCE,
        "MESH_AUTH__AUTHORIZATION_SERVERS": json.dumps([ISSUER]),
    }


@pytest.fixture(scope="module")
def jwks() -> Iterator[Jwks]:
    server = Jwks()
    yield server
    server.close()


@pytest.fixture(scope="module")
def agent(jwks: Jwks) -> Iterator[AgentProcess]:
    with run_agent(
        "tests.apps.secured_app", env={**auth_env(jwks), "MESH_SERVER__BODY_TIMEOUT": "1"}
    ) as running:
        yield running


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any], token: str | None, **headers: str) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    sent = {**ACCEPT, **headers, **({"Authorization": f"Bearer {token}"} if token else {})}
    return loopback.post(agent.mcp_url, json=body, headers=sent, timeout=10)


def params(challenge: str) -> dict[str, str]:
    scheme, _, rest = challenge.partition(" ")
    assert scheme == "Bearer"
    found = {}
    for part in rest.split(", "):
        key, _, value = part.partition("=")
        found[key] = value.strip('"')
    return found


def test_no_token_gets_401_pointing_at_the_protected_resource_metadata(agent: AgentProcess) -> None:
    answer = call(agent, "hello", {}, None)
    assert answer.status_code == 401
    challenge = params(answer.headers["www-authenticate"])
    metadata_url = f"{agent.base_url}/.well-known/oauth-protected-resource/mcp"
    assert challenge == {"resource_metadata": metadata_url}
    metadata = loopback.get(metadata_url, timeout=5).json()
    assert metadata == {
        "resource": f"{agent.base_url}/mcp",
        "authorization_servers": [ISSUER],
        "scopes_supported": ["admin", "math"],
        "bearer_methods_supported": ["header"],
        "resource_name": "secured",
    }
    assert (
        loopback.get(f"{agent.base_url}/.well-known/oauth-protected-resource", timeout=5).json() == metadata
    )
    assert loopback.get(f"{agent.base_url}/health", timeout=5).status_code == 200  # probes stay open


def test_unknown_or_malformed_tokens_get_invalid_token(agent: AgentProcess, jwks: Jwks) -> None:
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for token in (
        "not-a-token",
        jwks.token("math", key=other_key),  # signed by a key the JWKS does not hold
        jwks.token("math", expires_in=-120),  # expired (beyond the leeway)
        jwks.token("math", audience="urn:someone-else"),  # issued for another resource
    ):
        answer = call(agent, "add", {"a": 1, "b": 2}, token)
        assert answer.status_code == 401, token
        challenge = params(answer.headers["www-authenticate"])
        assert challenge["error"] == "invalid_token"
        assert challenge["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
        assert token not in answer.text


def test_scopes_per_tool_with_static_tokens(agent: AgentProcess) -> None:
    assert call(agent, "add", {"a": 2, "b": 3}, MATH_TOKEN).json()["result"]["structuredContent"] == {
        "result": 5
    }
    assert call(agent, "hello", {}, MATH_TOKEN).json()["result"]["isError"] is False
    refused = call(agent, "reset", {}, MATH_TOKEN)
    assert refused.status_code == 403
    challenge = params(refused.headers["www-authenticate"])
    assert challenge["error"] == "insufficient_scope"
    assert challenge["scope"] == "admin"
    assert refused.json() == {
        "error": "insufficient_scope",
        "error_description": "the access token lacks scope(s) admin",
    }
    assert call(agent, "reset", {}, ADMIN_TOKEN).json()["result"]["content"][0]["text"] == "reset done"


def test_scopes_are_checked_for_every_call_of_a_batch_and_in_the_modern_protocol(agent: AgentProcess) -> None:
    batch = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "reset", "arguments": {}}},
    ]
    sent = {**ACCEPT, "Authorization": f"Bearer {MATH_TOKEN}"}
    assert loopback.post(agent.mcp_url, json=batch, headers=sent, timeout=10).status_code == 403
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "reset", "arguments": {}, "_meta": meta},
    }
    modern = {**sent, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "reset"}
    assert loopback.post(agent.mcp_url, json=body, headers=modern, timeout=10).status_code == 403
    admin = {**modern, "Authorization": f"Bearer {ADMIN_TOKEN}"}
    answer = loopback.post(agent.mcp_url, json=body, headers=admin, timeout=10)
    assert answer.status_code == 200 and "reset done" in answer.text


def test_a_slow_body_is_answered_408_within_the_body_timeout(agent: AgentProcess) -> None:
    """Per-tool scopes make the authorization layer read the body: within `server.body_timeout` (1 s
    here), as the endpoint does, so a sender that stops half-way gets 408 instead of holding the request."""
    with socket.create_connection(("127.0.0.1", agent.port), timeout=10) as sock:  # it used to hang
        head = (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {MATH_TOKEN}\r\nContent-Length: 100\r\n\r\n"
        )
        sock.sendall(head.encode() + b'{"jsonrpc"')  # ... and nothing more
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"server.body_timeout" in answer
    assert call(agent, "add", {"a": 1, "b": 2}, MATH_TOKEN).json()["result"]["structuredContent"] == {
        "result": 3
    }


def test_jwt_scopes_come_from_the_scope_claim(agent: AgentProcess, jwks: Jwks) -> None:
    assert call(agent, "add", {"a": 4, "b": 4}, jwks.token("math")).json()["result"]["structuredContent"] == {
        "result": 8
    }
    assert call(agent, "reset", {}, jwks.token("math")).status_code == 403
    assert call(agent, "reset", {}, jwks.token("math admin")).status_code == 200


def test_host_checks_stay_on_behind_authorization(agent: AgentProcess) -> None:
    answer = call(agent, "hello", {}, MATH_TOKEN, Host="evil.example")
    assert answer.status_code == 421


def test_tokens_are_masked_in_mesh_config_and_absent_from_logs(agent: AgentProcess, jwks: Jwks) -> None:
    shown = run_cli(["config", "tests.apps.secured_app"], env=auth_env(jwks))
    assert shown.returncode == 0, shown.stderr
    assert "auth.tokens" in shown.stdout and "******" in shown.stdout
    for secret in (MATH_TOKEN, ADMIN_TOKEN):
        assert secret not in shown.stdout + shown.stderr
        assert secret not in agent.text()


def test_a_consumer_sends_the_token_configured_for_its_dependency(jwks: Jwks) -> None:
    with run_registry(0, "--timeout", "3") as registry:
        mesh = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
        with (
            run_agent("tests.apps.secured_app", env={**mesh, **auth_env(jwks)}),
            run_agent(
                "tests.apps.secured_caller_app",
                env={**mesh, "MESH_AUTH__DEPENDENCY_TOKENS": json.dumps({"add": MATH_TOKEN})},
            ) as caller,
            run_agent("tests.apps.secured_caller_app", "--name", "anonymous", env=mesh) as anonymous,
        ):

            def doubled() -> Any:
                result = call(caller, "double", {"x": 21}, None).json()["result"]
                return result if not result["isError"] else None

            assert wait_until(doubled, timeout=15)["structuredContent"] == {"result": 42}  # type: ignore[index]

            def refused() -> Any:  # once the anonymous caller knows the provider, the provider refuses it
                result = call(anonymous, "double", {"x": 1}, None).json()["result"]
                text = str(result["content"][0]["text"])
                return text if "refused" in text else None

            assert "refused the call: HTTP 401 a bearer token is required" in str(
                wait_until(refused, timeout=15)
            )
            assert MATH_TOKEN not in caller.text()
