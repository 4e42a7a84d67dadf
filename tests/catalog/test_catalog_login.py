"""`mesh catalog login NAME`: the user signs in to a catalog server behind OAuth (authorization code with
PKCE, a client ID metadata document as the client id, a loopback redirect); the tokens are kept for the
user (under $XDG_STATE_HOME, 0600 in 0700), renewed with the refresh token, forgotten by `logout`, and sent
by the user's agent to that server. The authorization server is node-oidc-provider (tests/servers/oidc)
fetching the client's document over https from 127.0.0.1; the server is a real agent behind JWT
authorization; the browser is played by `sign_in` (login and consent forms). The `mesh` commands run in
this process (tests/cli_in_process.py) but the one a test interrupts with Ctrl-C, a process."""

from __future__ import annotations

import base64
import json
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.catalog.oauth_login import LoginError, client_metadata_document
from mesh_framework.catalog.user_auth import UserLoginAuth
from mesh_framework.catalog.user_tokens import UserTokenStore, token_directory
from mesh_framework.config.settings import McpSettings
from mesh_framework.testing import mesh_client
from tests.agents import AgentProcess, agent_env, loopback, run_agent
from tests.cli_in_process import CliRun, run_cli_in_process, start_cli
from tests.servers.client_metadata import ClientMetadataServer, client_metadata_server
from tests.servers.oidc_server import NODE, OidcServer, oidc_server, sign_in

pytestmark = pytest.mark.timeout(120)
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)

ACCEPT = {"Accept": "application/json, text/event-stream"}
PROMPT = "Sign in to 'books' in your browser: "


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("catalog-login")


@pytest.fixture(scope="module")
def document(folder: Path) -> Iterator[ClientMetadataServer]:
    with client_metadata_server(folder) as served:
        yield served


@pytest.fixture(scope="module")
def oauth(document: ClientMetadataServer) -> Iterator[OidcServer]:
    with oidc_server(ttl=30, cimd=True, env={"NODE_EXTRA_CA_CERTS": str(document.ca_file)}) as server:
        yield server


def protected(oauth: OidcServer) -> dict[str, str]:
    """An agent behind the server's JWTs: 401 with `resource_metadata`, scope `read` in its metadata."""
    return {
        "MESH_AUTH__JWKS_URL": oauth.jwks_url,
        "MESH_AUTH__ISSUER": oauth.issuer,
        "MESH_AUTH__AUTHORIZATION_SERVERS": json.dumps([oauth.issuer]),
        "MESH_AUTH__REQUIRED_SCOPES": '["read"]',
    }


@pytest.fixture(scope="module")
def books(oauth: OidcServer) -> Iterator[AgentProcess]:
    with run_agent("tests.apps.identity_provider_app", env=protected(oauth)) as running:
        yield running


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's $XDG_STATE_HOME (the CLI's and the in-process agent's)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def catalog_file(folder: Path, **servers: dict[str, Any]) -> str:
    path = folder / f"catalog-{len(list(folder.glob('catalog-*')))}.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


class LoginProcess:
    """`mesh catalog login ...` running as a process (to be interrupted): its sign-in URL once printed; its
    end."""

    def __init__(self, args: list[str], state: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mesh_framework.cli", "catalog", "login", *args, "--no-browser"],
            env=agent_env({"XDG_STATE_HOME": str(state)}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def url(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the CLI's first line (at its end, an empty one)
        assert line.startswith(PROMPT), line + self.finish()[2]
        return line.removeprefix(PROMPT).strip()

    def finish(self) -> tuple[int, str, str]:
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, out, err


class Login:
    """`mesh catalog login ...` running in this process: its sign-in URL once printed; its end."""

    def __init__(
        self, args: list[str], monkeypatch: pytest.MonkeyPatch, env: dict[str, str] | None = None
    ) -> None:
        self.run: CliRun = start_cli(["catalog", "login", *args, "--no-browser"], monkeypatch, env)

    def url(self) -> str:
        line = self.run.first_line()  # the CLI's first line (at its end, an empty one)
        assert line.startswith(PROMPT), line + self.finish()[2]
        return line.removeprefix(PROMPT).strip()

    def finish(self) -> tuple[int, str, str]:
        done = self.run.finish(timeout=60)
        return done.returncode, done.stdout, done.stderr


def claims(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


def login_with_the_document(
    books: AgentProcess, document: ClientMetadataServer, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Sign alice in to `books` of an app's catalog, the app's settings naming the document's URL; the
    CLI's output."""
    env = {
        "MESH_MCP__SERVERS": json.dumps({"books": {"type": "http", "url": books.mcp_url}}),
        "MESH_MCP__OAUTH_CLIENT_ID_URL": document.client_id,
    }
    login = Login(["books", "tests.apps.catalog_login_app"], monkeypatch, env)
    page = sign_in(login.url(), "alice")
    assert page.status_code == 200 and "You can close this window" in page.text and "Signed in" in page.text
    code, out, err = login.finish()
    assert code == 0, err
    return out


def test_login_keeps_the_user_s_tokens_for_the_server_readable_by_the_user_only(
    books: AgentProcess,
    document: ClientMetadataServer,
    oauth: OidcServer,
    state: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = document.fetches
    out = login_with_the_document(books, document, monkeypatch)
    assert f"signed in to 'books' ({books.mcp_url}) at {oauth.issuer} with scope 'read'" in out
    folder = state / "mesh" / "tokens"
    [path] = folder.glob("*.json")
    assert f"the tokens are in {path}" in out
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = json.loads(path.read_text())
    assert kept["client_id"] == document.client_id  # the document's URL is the client id
    assert kept["issuer"] == oauth.issuer and kept["resource"] == books.mcp_url
    assert kept["refresh_token"]
    token = claims(kept["access_token"])
    assert token["sub"] == "alice" and token["aud"] == books.mcp_url and token["scope"] == "read"
    assert document.fetches > before  # the authorization server read the document


def test_the_authorization_request_carries_pkce_state_resource_and_scope(
    books: AgentProcess, document: ClientMetadataServer, state: Path, folder: Path
) -> None:
    login = LoginProcess(
        ["books", "--file", catalog_file(folder, books={"type": "http", "url": books.mcp_url}),
         "--client-id-url", document.client_id],
        state,
    )  # fmt: skip
    query = {k: v[0] for k, v in parse_qs(urlsplit(login.url()).query).items()}
    login.process.send_signal(signal.SIGINT)  # the user gives up: nothing stored
    code, _out, err = login.finish()
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
    assert query["client_id"] == document.client_id and query["response_type"] == "code"
    assert query["resource"] == books.mcp_url and query["scope"] == "read" and len(query["state"]) >= 32
    redirect = urlsplit(query["redirect_uri"])
    assert (redirect.scheme, redirect.hostname, redirect.path) == ("http", "127.0.0.1", "/callback")
    assert (code, err) == (1, "mesh catalog login: cancelled; nothing stored\n")
    assert not (state / "mesh" / "tokens").exists() or not list((state / "mesh" / "tokens").glob("*.json"))


def test_an_answer_with_another_state_is_refused(
    books: AgentProcess,
    document: ClientMetadataServer,
    state: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog = catalog_file(folder, books={"type": "http", "url": books.mcp_url})
    login = Login(["books", "--file", catalog, "--client-id-url", document.client_id], monkeypatch)
    redirect = parse_qs(urlsplit(login.url()).query)["redirect_uri"][0]
    page = loopback.get(redirect, params={"code": "stolen", "state": "forged"}, timeout=10)
    code, _out, err = login.finish()
    assert page.status_code == 200 and "You can close this window" in page.text
    assert code == 1
    assert err.startswith("mesh catalog login: the redirect's state does not match this login's: refused")
    assert not list((state / "mesh" / "tokens").glob("*.json"))


def test_a_user_who_denies_gets_the_server_s_refusal(
    books: AgentProcess,
    document: ClientMetadataServer,
    oauth: OidcServer,
    state: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog = catalog_file(folder, books={"type": "http", "url": books.mcp_url})
    login = Login(["books", "--file", catalog, "--client-id-url", document.client_id], monkeypatch)
    page = sign_in(login.url(), deny=True)
    code, _out, err = login.finish()
    assert "Sign-in refused" in page.text and "You can close this window" in page.text
    assert code == 1
    assert err == (
        f"mesh catalog login: the authorization server {oauth.issuer} refused the sign-in: access_denied "
        "(End-User aborted interaction)\n"
    )


async def test_the_agent_calls_the_server_with_the_user_s_sign_in(
    books: AgentProcess, document: ClientMetadataServer, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_with_the_document(books, document, monkeypatch)
    servers = json.dumps({"books": {"type": "http", "url": books.mcp_url}})
    app = MeshApplication.load("tests.apps.catalog_login_app", environ={"MESH_MCP__SERVERS": servers})
    async with mesh_client(app) as client:
        answer = await client.call_tool("ask_books", {})
    assert not answer["isError"], answer
    seen = answer["structuredContent"]
    assert (seen["subject"], seen["client_id"]) == ("alice", document.client_id)
    assert seen["audience"] == [books.mcp_url]


async def test_without_a_sign_in_the_agent_names_the_command_to_sign_in_with(
    books: AgentProcess, state: Path
) -> None:
    servers = json.dumps({"books": {"type": "http", "url": books.mcp_url}})
    app = MeshApplication.load("tests.apps.catalog_login_app", environ={"MESH_MCP__SERVERS": servers})
    async with mesh_client(app) as client:
        answer = await client.call_tool("ask_books", {})
    assert answer["isError"]
    said = answer["content"][0]["text"]
    assert (
        "MCP server 'books' is down: LoginError: catalog server 'books' asks for a token (HTTP 401): run "
        in said
    )
    assert "`mesh catalog login books` to sign in" in said


async def test_a_sign_in_due_to_expire_is_renewed_with_its_refresh_token(
    books: AgentProcess, document: ClientMetadataServer, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_with_the_document(books, document, monkeypatch)
    store = UserTokenStore()
    first = store.find(books.mcp_url)
    assert first is not None and first.expires_at is not None
    store.save(replace(first, expires_at=first.expires_at - 3600))  # as if an hour had passed
    async with httpx2.AsyncClient(timeout=10) as http:
        auth = UserLoginAuth("books", books.mcp_url, http=lambda: http)
        async with httpx2.AsyncClient(auth=auth, timeout=10) as caller:
            answer = await caller.post(books.mcp_url, json=whoami(), headers=ACCEPT)
    assert answer.status_code == 200 and subject(answer) == "alice"
    renewed = store.find(books.mcp_url)
    assert renewed is not None and renewed.access_token != first.access_token
    assert renewed.expires_at is not None and renewed.expires_at > first.expires_at - 3600
    assert renewed.refresh_token  # rotated or kept, still one to renew with


async def test_a_token_the_server_refuses_is_renewed_once(
    books: AgentProcess, document: ClientMetadataServer, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_with_the_document(books, document, monkeypatch)
    store = UserTokenStore()
    first = store.find(books.mcp_url)
    assert first is not None
    store.save(replace(first, access_token="not-a-token"))
    async with httpx2.AsyncClient(timeout=10) as http:
        auth = UserLoginAuth("books", books.mcp_url, http=lambda: http)
        async with httpx2.AsyncClient(auth=auth, timeout=10) as caller:
            answer = await caller.post(books.mcp_url, json=whoami(), headers=ACCEPT)
    assert answer.status_code == 200 and subject(answer) == "alice"
    renewed = store.find(books.mcp_url)
    assert renewed is not None and renewed.access_token not in ("not-a-token", first.access_token)


async def test_a_spent_refresh_token_fails_the_call_naming_the_command_to_run(
    books: AgentProcess,
    document: ClientMetadataServer,
    state: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    login_with_the_document(books, document, monkeypatch)
    store = UserTokenStore()
    first = store.find(books.mcp_url)
    assert first is not None and first.expires_at is not None
    store.save(replace(first, refresh_token="spent", expires_at=first.expires_at - 3600))
    async with httpx2.AsyncClient(timeout=10) as http:
        auth = UserLoginAuth("books", books.mcp_url, http=lambda: http)
        async with httpx2.AsyncClient(auth=auth, timeout=10) as caller:
            with pytest.raises(LoginError) as failed:
                await caller.post(books.mcp_url, json=whoami(), headers=ACCEPT)
    message = str(failed.value)
    assert message.startswith("the sign-in to 'books' cannot be renewed: ")
    assert "invalid_grant" in message and message.endswith("run `mesh catalog login books` again")


def test_logout_forgets_the_sign_in(
    books: AgentProcess, document: ClientMetadataServer, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_with_the_document(books, document, monkeypatch)
    env = {"MESH_MCP__SERVERS": json.dumps({"books": {"type": "http", "url": books.mcp_url}})}
    logout = ["catalog", "logout", "books", "tests.apps.catalog_login_app"]
    out = run_cli_in_process(logout, monkeypatch, env)
    assert (out.returncode, out.stdout) == (
        0,
        f"signed out of 'books' ({books.mcp_url}): 1 sign-in(s) forgotten\n",
    )
    assert not list((state / "mesh" / "tokens").glob("*.json"))
    again = run_cli_in_process(logout, monkeypatch, env)
    assert again.stdout == f"not signed in to 'books' ({books.mcp_url}); nothing to forget\n"


def test_an_authorization_server_without_cimd_gets_the_registered_client_id(
    document: ClientMetadataServer, state: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered = [{"client_id": "mesh-cli", "redirect_uris": ["http://127.0.0.1/callback"]}]
    with (
        oidc_server(ttl=30, public_clients=registered) as plain,
        run_agent("tests.apps.identity_provider_app", env=protected(plain)) as other,
    ):
        assert (
            "client_id_metadata_document_supported"
            not in loopback.get(plain.issuer + "/.well-known/openid-configuration", timeout=10).json()
        )
        catalog = catalog_file(folder, books={"type": "http", "url": other.mcp_url})
        refused = run_cli_in_process(
            ["catalog", "login", "books", "--file", catalog, "--client-id-url", document.client_id,
             "--no-browser"],
            monkeypatch,
        )  # fmt: skip
        assert refused.returncode == 1
        assert refused.stderr == (
            f"mesh catalog login: the authorization server {plain.issuer} does not support client ID "
            "metadata documents: register a public client there with the redirect URI "
            "http://127.0.0.1/callback and set mcp.oauth_client_id (or --client-id)\n"
        )
        login = Login(
            ["books", "--file", catalog, "--client-id-url", document.client_id, "--client-id", "mesh-cli"],
            monkeypatch,
        )
        sign_in(login.url(), "bob")
        code, _out, err = login.finish()
        assert code == 0, err
    kept = UserTokenStore().find(other.mcp_url)
    assert kept is not None and kept.client_id == "mesh-cli" and claims(kept.access_token)["sub"] == "bob"


@pytest.mark.parametrize(
    ("args", "exit_code", "said"),
    [
        (["nope"], 1, "unknown MCP server(s): nope (the catalog has: books, local, open)"),
        (["local"], 1, "'local' is a local process (stdio): sign-in is for servers reached over HTTP"),
        (["books", "--client-id-url", "http://example.com/c.json"], 2, "--client-id-url: 'http://example"),
        (["books"], 1, "takes a client ID metadata document as client id: publish one"),
        (["open"], 1, "is not behind OAuth: it answered HTTP 200 without a Bearer challenge"),
    ],
)
def test_bad_input_gets_one_line_and_the_exit_code(
    args: list[str],
    exit_code: int,
    said: str,
    books: AgentProcess,
    open_server: AgentProcess,
    state: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog = catalog_file(
        folder,
        books={"type": "http", "url": books.mcp_url},
        local={"command": "true"},
        open={"type": "http", "url": open_server.mcp_url},
    )
    result = run_cli_in_process(["catalog", "login", *args, "--file", catalog, "--no-browser"], monkeypatch)
    assert result.returncode == exit_code
    assert result.stderr.startswith("mesh catalog login: ") and said in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def open_server() -> Iterator[AgentProcess]:
    """An MCP server anyone may call."""
    with run_agent("tests.apps.identity_provider_app") as running:
        yield running


def test_the_store_lives_under_xdg_state_home_else_the_home_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "/srv/state")
    assert token_directory() == Path("/srv/state/mesh/tokens")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")  # the XDG rule: only absolute paths count
    assert token_directory() == Path.home() / ".local" / "state" / "mesh" / "tokens"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert token_directory() == Path.home() / ".local" / "state" / "mesh" / "tokens"


def test_a_server_s_own_client_replaces_the_agent_wide_one() -> None:
    mcp = McpSettings.model_validate(
        {
            "oauth_client_id_url": "https://me.example/mesh.json",
            "oauth_client_id": "cli",
            "oauth_clients": {"books": {"client_id": "books-cli", "scopes": "read write"}},
        }
    )
    assert (mcp.login_client("books").client_id_url, mcp.login_client("books").client_id) == (
        None,
        "books-cli",
    )
    assert mcp.login_client("books").scopes == ["read", "write"]
    assert mcp.login_client("other").client_id_url == "https://me.example/mesh.json"
    with pytest.raises(ValueError, match="is not an https URL with a path"):
        McpSettings.model_validate({"oauth_client_id_url": "https://me.example/"})


def test_the_document_to_publish_is_a_public_native_loopback_client() -> None:
    assert client_metadata_document("https://me.example/mesh.json") == {
        "client_id": "https://me.example/mesh.json",
        "client_name": "mesh",
        "application_type": "native",
        "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }


def whoami() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}


def subject(answer: httpx2.Response) -> str:
    text = answer.text
    message = json.loads(text.split("data: ", 1)[1]) if "data: " in text else answer.json()
    return str(message["result"]["structuredContent"]["subject"])


def test_a_sign_in_not_made_in_time_ends_the_login(
    books: AgentProcess,
    document: ClientMetadataServer,
    state: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalog = catalog_file(folder, books={"type": "http", "url": books.mcp_url})
    result = run_cli_in_process(
        ["catalog", "login", "books", "--file", catalog, "--client-id-url", document.client_id,
         "--no-browser", "--timeout", "0.5"],
        monkeypatch,
    )  # fmt: skip
    assert result.stdout.startswith(PROMPT)  # the URL was shown; nobody opened it
    assert (result.returncode, result.stderr) == (
        1,
        "mesh catalog login: no sign-in within 0.5s; run the login again\n",
    )
    assert not (state / "mesh" / "tokens").exists() or not list((state / "mesh" / "tokens").glob("*.json"))
