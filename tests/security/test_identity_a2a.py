"""A2A calls between two agents and a real authorization server (node-oidc-provider, tests/servers/oidc):
the caller's `A2aClient` sends the access token of the OAuth client named for the peer
(`auth.dependency_clients.<peer>`), the peer verifies it against the server's JWKS and its skills see the
caller (an `AccessToken` parameter, `ctx.access_token`) on every path a skill runs by: in the request, as
the SDK's task (a stream), through MCP Mesh's dialect. A token the peer refuses as `invalid_token` is
renewed once and the call sent again; a token endpoint that is down fails the call with an `A2aError`
naming it, one log line. Without a verifier, a skill's caller is None."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework import A2aClient
from tests.agents import AgentProcess, loopback, run_agent, run_mesh, wait_until
from tests.servers.oidc_server import CLIENT_ID, CLIENT_SECRET, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(120)

RESOURCE = "urn:mesh:a2a-peer"
PEERS = ("WHOAMI", "WHOAMI_STREAM", "WHOAMI_LEGACY")


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=60) as server:  # long-lived: no renewal but the one a test causes
        yield server


@pytest.fixture(scope="module")
def peer(oauth: OidcServer) -> Iterator[AgentProcess]:
    with run_agent("tests.apps.identity_a2a_peer_app", env=peer_env(oauth)) as running:
        yield running
    assert "Traceback" not in running.text(), running.text()[-3000:]


def peer_env(oauth: OidcServer) -> dict[str, str]:
    return {
        "MESH_AUTH__JWKS_URL": oauth.jwks_url,
        "MESH_AUTH__ISSUER": oauth.issuer,
        "MESH_AUTH__AUDIENCE": RESOURCE,
        "MESH_AUTH__JWKS_REFRESH_COOLDOWN": "0",  # a rotated key is looked up at once
    }


def caller_env(peer: AgentProcess, **client: str) -> dict[str, str]:
    """The caller's peers at `peer`, each with the OAuth client `client` names (its settings' keys)."""
    skills = {"WHOAMI": "whoami", "WHOAMI_STREAM": "whoami-stream", "WHOAMI_LEGACY": "whoami"}
    env = {f"MESH_A2A__PEERS__{name}__URL": f"{peer.base_url}/a2a/{skills[name]}" for name in PEERS}
    env["MESH_A2A__PEERS__WHOAMI_LEGACY__DIALECT"] = "mcp-mesh"
    for name in PEERS:
        env.update({f"MESH_AUTH__DEPENDENCY_CLIENTS__{name}__{key.upper()}": v for key, v in client.items()})
    return env


def oauth_client(oauth: OidcServer) -> dict[str, str]:
    return {
        "issuer": oauth.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "scopes": "read",
        "resource": RESOURCE,
    }


def call(agent: AgentProcess, tool: str, text: str = "hi") -> dict[str, Any]:
    """The tool's CallToolResult."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {"text": text}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    answer = loopback.post(agent.mcp_url, json=body, headers=headers, timeout=30)
    return answer.json()["result"]  # type: ignore[no-any-return]


def answer_of(agent: AgentProcess, tool: str, text: str = "hi") -> Any:
    result = call(agent, tool, text)
    assert not result["isError"], result["content"]
    return result["structuredContent"]["result"]


def send_to(peer: AgentProcess, token: str | None) -> Any:
    """What the peer's `whoami` answers a message sent with `token` (current dialect, by hand)."""
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "by hand"}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    headers = {"A2A-Version": "1.0", **({"Authorization": f"Bearer {token}"} if token else {})}
    url = peer.base_url + "/a2a/whoami"
    answer = loopback.post(url, json=body, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    task = answer.json()["result"]["task"]
    return json.loads(task["artifacts"][0]["parts"][0]["text"])


def error_of(agent: AgentProcess, tool: str) -> str:
    result = call(agent, tool)
    assert result["isError"], result
    return str(result["content"][0]["text"])


def test_the_caller_s_oauth_client_is_who_the_a2a_skill_sees(oauth: OidcServer, peer: AgentProcess) -> None:
    before = oauth.token_requests()
    env = caller_env(peer, **oauth_client(oauth))
    with run_agent("tests.apps.identity_a2a_caller_app", env=env) as caller:
        caller_seen = {"text": "hi", "client_id": CLIENT_ID, "scopes": ["read"]}
        assert answer_of(caller, "ask_whoami") == {
            "state": "completed",
            "answer": {**caller_seen, "same": True},
        }
        assert answer_of(caller, "stream_whoami") == caller_seen  # the SDK's task runs it
        assert answer_of(caller, "ask_whoami_legacy") == {  # tasks/send
            "state": "completed",
            "answer": {**caller_seen, "same": True},
        }
        # one token per OAuth client (each peer names its own), kept for the calls after the first
        assert oauth.token_requests() == before + 3
        assert answer_of(caller, "ask_whoami", "again")["answer"]["client_id"] == CLIENT_ID
        assert oauth.token_requests() == before + 3
    assert CLIENT_SECRET not in caller.text()


def test_an_a2a_peer_is_not_sent_the_agent_wide_identity(oauth: OidcServer, peer: AgentProcess) -> None:
    """`auth.client_credentials` is for the mesh's own agents; a peer gets only what is named for it."""
    env = caller_env(peer)
    env.update({f"MESH_AUTH__CLIENT_CREDENTIALS__{k.upper()}": v for k, v in oauth_client(oauth).items()})
    with run_agent("tests.apps.identity_a2a_caller_app", env=env) as caller:
        refused = error_of(caller, "ask_whoami")
    assert "A2A peer 'whoami' refused" in refused and "authentication required" in refused
    assert "auth.dependency_clients.whoami" in refused  # the message names the setting to use


def test_a_token_the_peer_refuses_is_renewed_once_and_the_call_sent_again(oauth: OidcServer) -> None:
    with (
        run_agent("tests.apps.identity_a2a_peer_app", env=peer_env(oauth)) as fresh_peer,
        run_agent(
            "tests.apps.identity_a2a_caller_app", env=caller_env(fresh_peer, **oauth_client(oauth))
        ) as caller,
    ):
        assert answer_of(caller, "ask_whoami")["answer"]["client_id"] == CLIENT_ID  # a token, cached
        oauth.rotate(retire=True)  # the caller's token is now signed by a key the server no longer has
        # the peer meets the new key (and so reads the JWKS again, which lacks the old one)
        signed = oauth.sign(oauth.claims(RESOURCE, client_id="someone"))
        assert send_to(fresh_peer, signed)["client_id"] == "someone"
        before = oauth.token_requests()
        assert answer_of(caller, "ask_whoami", "after rotation")["answer"] == {
            "text": "after rotation",
            "client_id": CLIENT_ID,
            "scopes": ["read"],
            "same": True,
        }
        assert oauth.token_requests() == before + 1  # the refused token dropped, one fresh one fetched
    assert "Traceback" not in caller.text() + fresh_peer.text()


def test_a_token_endpoint_that_is_down_fails_the_a2a_call_naming_it(peer: AgentProcess) -> None:
    with socket.socket() as closed:  # a port nothing listens on once closed
        closed.bind(("127.0.0.1", 0))
        token_url = f"http://127.0.0.1:{closed.getsockname()[1]}/token"
    client = {"token_url": token_url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}
    with run_agent("tests.apps.identity_a2a_caller_app", env=caller_env(peer, **client)) as caller:
        failed = error_of(caller, "ask_whoami")
        assert failed.startswith("A2A peer 'whoami': ")
        assert f"auth.dependency_clients.whoami: no access token from {token_url} for client" in failed
        assert "ConnectError" in failed
        wait_until(lambda: "tool 'ask_whoami' failed" in caller.text())  # the log read as it comes
        lines = [line for line in caller.text().splitlines() if token_url in line]
    # one line where the token was not had, none from the A2A client; the tool's failure is its own line
    assert [line.split()[2] for line in lines] == ["mesh_framework.security:", "mesh_framework.tools:"], lines
    assert "tool 'ask_whoami' failed: A2A peer 'whoami': auth.dependency_clients.whoami" in lines[1]
    assert "Traceback" not in caller.text() and CLIENT_SECRET not in caller.text()


async def test_without_a_verifier_an_a2a_skill_s_caller_is_none() -> None:
    with run_agent("tests.apps.identity_a2a_peer_app") as unguarded:
        async with httpx2.AsyncClient(trust_env=False) as http:
            whoami = A2aClient("whoami", url=unguarded.base_url + "/a2a/whoami", http=lambda: http)
            stream = A2aClient("stream", url=unguarded.base_url + "/a2a/whoami-stream", http=lambda: http)
            legacy = A2aClient(
                "legacy", url=unguarded.base_url + "/a2a/whoami", http=lambda: http, dialect="mcp-mesh"
            )
            nobody = {"text": "hi", "client_id": None, "scopes": []}
            assert json.loads((await whoami.send("hi")).text) == {**nobody, "same": True}
            assert json.loads((await legacy.send("hi")).text) == {**nobody, "same": True}
            chunks = [e.text async for e in stream.stream("hi") if e.kind == "artifact" and e.text]
            assert [json.loads(c) for c in chunks] == [nobody]
            # a token sent to an agent that verifies none is no caller either
            sent = A2aClient("whoami", url=unguarded.base_url + "/a2a/whoami", http=lambda: http, token="t")
            assert json.loads((await sent.send("hi")).text)["client_id"] is None


def test_a_skill_sees_the_caller_its_a2a_guard_verified_without_the_agent_s_edge() -> None:
    """The A2A routes mounted alone (no edge verified the token before them): the guard's caller is the
    skill's, on the request's path and the SDK's."""
    tokens = '[{"token": "alice-token", "scopes": ["user"], "client_id": "alice"}]'
    command = [sys.executable, "-m", "tests.a2a_bare_server"]
    env = {"MESH_AUTH__TOKENS": tokens}
    with run_mesh(["tests.apps.identity_a2a_peer_app"], env=env, mesh=command) as bare:
        assert send_to(bare, "alice-token") == {
            "text": "by hand",
            "client_id": "alice",
            "scopes": ["user"],
            "same": True,
        }
        legacy = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tasks/send",
            "params": {"id": "t-1", "message": {"role": "user", "parts": [{"type": "text", "text": "old"}]}},
        }
        answer = loopback.post(
            bare.base_url + "/a2a/whoami",
            json=legacy,
            headers={"Authorization": "Bearer alice-token"},
            timeout=10,
        ).json()["result"]
        assert json.loads(answer["artifacts"][0]["parts"][0]["text"])["client_id"] == "alice"


def test_the_app_s_own_token_verifier_guards_its_a2a_skills() -> None:
    """A `TokenVerifier` component replaces the configured verifier on A2A as on MCP: no token, an unknown
    one or too few scopes are refused before the skill runs; a known caller is the skill's."""
    with run_agent("tests.apps.identity_a2a_component_app") as agent:

        def post(skill: str, token: str | None) -> httpx2.Response:
            message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "x"}]}
            body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
            headers = {"A2A-Version": "1.0", **({"Authorization": f"Bearer {token}"} if token else {})}
            url = f"{agent.base_url}/a2a/{skill}"
            return loopback.post(url, json=body, headers=headers, timeout=10)

        def text_of(answer: httpx2.Response) -> str:
            assert answer.status_code == 200, answer.text
            return str(answer.json()["result"]["task"]["artifacts"][0]["parts"][0]["text"])

        card = loopback.get(agent.base_url + "/.well-known/agent-card.json", timeout=10).json()
        assert card["securitySchemes"] == {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}
        legacy = loopback.get(agent.base_url + "/a2a/erase/.well-known/agent.json", timeout=10)
        assert legacy.json()["authentication"] == {"schemes": ["bearer"]}
        assert post("whoami", None).status_code == 401
        unknown = post("whoami", "nope")
        assert unknown.status_code == 401 and 'error="invalid_token"' in unknown.headers["www-authenticate"]
        assert text_of(post("whoami", "alice-token")) == "x:alice"
        weak = post("erase", "alice-token")
        assert weak.status_code == 403 and 'error="insufficient_scope"' in weak.headers["www-authenticate"]
        assert text_of(post("erase", "root-token")) == "ERASED:x:root"
    assert "ERASED:x:alice" not in agent.text()
