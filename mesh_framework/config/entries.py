"""The models of one entry of a settings list or mapping (a static token, an OAuth client, an A2A peer, a
static folder, an OpenAPI service and its credentials, a catalog login client, a command tool), made when
a setting holds one.

`config/settings.py` names them through `_entries` and re-exports them: an agent whose settings hold no
such entry never creates these classes (pydantic's class creation, ~2 ms for the eight, is a start-up cost).
"""

from typing import Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

__all__ = [
    "A2aPeerSettings",
    "ClientCredentialsSettings",
    "CommandToolSettings",
    "McpLoginSettings",
    "OpenApiAuthSettings",
    "OpenApiServiceSettings",
    "StaticToken",
    "WebStaticMount",
    "client_document_url",
]

# No `from __future__ import annotations`, as in `config/settings.py`, whose section config this is (a test
# keeps them equal): not imported from there, since that module imports this one (on first use).
_Section = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


def _list() -> list[Any]:
    return []


def client_document_url(value: str | None) -> str | None:
    """A client ID metadata document's URL: https, with a path, no fragment (`mcp.oauth_client_id_url`
    and `mcp.oauth_clients.<server>.client_id_url`)."""
    if value is not None:
        parts = urlsplit(value)
        if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/") or parts.fragment:
            raise ValueError(
                f"{value!r} is not an https URL with a path (a client ID metadata document's URL)"
            )
    return value


class StaticToken(BaseModel):
    model_config = _Section

    token: SecretStr = Field(description="The bearer token a client presents")
    scopes: list[str] = Field(default_factory=_list, description="Scopes this token grants")
    client_id: str = Field("static", description="Who the token stands for (logs, the tool's context)")

    @field_validator("token")
    @classmethod
    def _not_empty(cls, value: SecretStr) -> SecretStr:
        if not value.get_secret_value():
            raise ValueError("a token must not be empty")
        return value


class ClientCredentialsSettings(BaseModel):
    """An OAuth 2.0 client of this agent (client credentials grant): the access tokens it sends on calls."""

    model_config = _Section

    token_url: str | None = Field(None, description="Token endpoint of the authorization server")
    issuer: str | None = Field(
        None,
        description="Authorization server whose metadata names the token endpoint (when no token_url); "
        "neither (dependency_clients only): the one the called server's resource metadata names",
    )
    client_id: str = Field(description="This agent's client id at the authorization server")
    client_secret: SecretStr = Field(description="This agent's client secret")
    scopes: list[str] = Field(
        default_factory=_list, description="Scopes asked for (none: the client's default)"
    )
    resource: str | None = Field(
        None, description="RFC 8707 resource asked for (default: the URL called, e.g. http://host:port/mcp)"
    )
    auth_method: Literal["client_secret_basic", "client_secret_post"] = Field(
        "client_secret_basic", description="How the client authenticates at the token endpoint"
    )
    timeout: float = Field(10.0, gt=0, description="Seconds to wait for the token endpoint")
    token_exchange: bool = Field(
        False,
        description="On behalf of the caller: a call made while serving a request with a verified JWT sends "
        "a token exchanged for it (RFC 8693; subject: the caller, actor: this client)",
    )

    @field_validator("scopes", mode="before")
    @classmethod
    def _split_scopes(cls, value: Any) -> Any:
        return value.split() if isinstance(value, str) else value

    @field_validator("token_url", "issuer")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("resource")
    @classmethod
    def _absolute_uri(cls, value: str | None) -> str | None:
        if value is not None and (not urlsplit(value).scheme or "#" in value):
            raise ValueError(f"{value!r} is not an absolute URI without a fragment (RFC 8707)")
        return value

    @property
    def discovered(self) -> bool:
        """Neither token_url nor issuer: the authorization server is the one the called server's
        protected-resource metadata names (RFC 9728), as an MCP client finds it."""
        return self.token_url is None and self.issuer is None


class A2aPeerSettings(BaseModel):
    """One A2A agent this agent calls (an `A2aClient` parameter named after it)."""

    model_config = _Section

    url: str | None = Field(
        None, description="The peer's A2A endpoint; unset: found through the registry by skill id"
    )
    token: SecretStr | None = Field(None, description="Bearer token sent to the peer")
    dialect: Literal["auto", "current", "mcp-mesh"] = Field(
        "auto", description="current: the A2A specification; mcp-mesh: tasks/*; auto: read the card"
    )
    timeout: float = Field(30.0, gt=0, description="Seconds one request (or a stream's gap) may take")


class WebStaticMount(BaseModel):
    """One folder of static files served beside the agent's routes (Starlette's StaticFiles)."""

    model_config = _Section

    path: str = Field("/", description="URL path the folder is served at (mounted after every route)")
    directory: str = Field(description="Folder to serve, relative to the config folder, else the app package")
    html: bool = Field(True, description="Answer a folder with its index.html, a missing file with 404.html")

    @field_validator("path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError(f"must start with '/', e.g. '/{value}'")
        return value


class OpenApiAuthSettings(BaseModel):
    """What calls to one OpenAPI service carry: a bearer token, a header (an API key) or an OAuth client of
    this agent. Without it, what `auth.dependency_tokens` / `auth.dependency_clients` name for the
    service."""

    model_config = _Section

    bearer: SecretStr | None = Field(None, description="Sent as 'Authorization: Bearer <bearer>'")
    header: str | None = Field(None, description="Header carrying value, e.g. X-API-Key")
    value: SecretStr | None = Field(None, description="The header's value (an API key)")
    client: str | None = Field(
        None, description="An OAuth client of this agent: the name of an auth.dependency_clients entry"
    )

    @model_validator(mode="after")
    def _one_way(self) -> Self:
        if (self.header is None) != (self.value is None):
            raise ValueError("header and value go together: the header's name and what it carries")
        ways = [self.bearer, self.header, self.client]
        if sum(way is not None for way in ways) != 1:
            raise ValueError("set one of bearer, header (with value) or client")
        return self


class OpenApiServiceSettings(BaseModel):
    """One HTTP service whose OpenAPI operations are tools of this agent (`mcp.openapi`)."""

    model_config = _Section

    name: str = Field(description="The service's name (logs, errors, auth.dependency_* entries)")
    spec: str = Field(description="Its OpenAPI 3.0/3.1 document: a file (JSON or YAML) or an http(s) URL")
    base_url: str | None = Field(
        None, description="Where calls go (default: the document's first server, against the spec's URL)"
    )
    include_tags: list[str] = Field(
        default_factory=_list, description="Only operations with one of these tags (none: every operation)"
    )
    exclude_tags: list[str] = Field(default_factory=_list, description="Leave out operations with these tags")
    prefix: str = Field("", description="Put before every tool name of the service (to avoid clashes)")
    timeout: Annotated[float, Field(gt=0)] | None = Field(
        None, description="Seconds one call may take (default: tools.timeout)"
    )
    auth: OpenApiAuthSettings | None = Field(None, description="What calls carry (bearer, header or client)")

    @field_validator("name")
    @classmethod
    def _a_name(cls, value: str) -> str:
        if not value or not all(c.isalnum() or c in "_-." for c in value):
            raise ValueError("use letters, digits, '_', '-' or '.', e.g. petstore")
        return value

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        parts = urlsplit(value) if value is not None else None
        if parts is not None and (parts.scheme not in ("http", "https") or not parts.netloc):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("include_tags", "exclude_tags", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


class McpLoginSettings(BaseModel):
    """Who the user's client is when `mesh catalog login` signs them in to a catalog server behind OAuth
    (`mcp.oauth_clients.<server>`, which replaces `mcp.oauth_client_id_url` and `mcp.oauth_client_id`)."""

    model_config = _Section

    client_id_url: str | None = Field(
        None,
        description="https URL of your client ID metadata document, the client id where the authorization "
        "server supports them (client_id_metadata_document_supported)",
    )
    client_id: str | None = Field(
        None, description="A client id registered at the authorization server, for one without CIMD support"
    )
    scopes: list[str] | None = Field(
        None, description="Scopes asked for (default: the server's challenge, else its scopes_supported)"
    )

    @field_validator("client_id_url")
    @classmethod
    def _document_url(cls, value: str | None) -> str | None:
        return client_document_url(value)

    @field_validator("scopes", mode="before")
    @classmethod
    def _split_scopes(cls, value: Any) -> Any:
        return value.split() if isinstance(value, str) else value


class CommandToolSettings(BaseModel):
    """One command tool's own settings (`commands.tools.<tool name>`), above its `@mcp_command` values."""

    model_config = _Section

    background: bool | None = Field(None, description="Run as a background job (false: inline)")
    timeout: Annotated[float, Field(gt=0)] | None = Field(None, description="Seconds before it is stopped")
