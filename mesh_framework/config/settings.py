"""`MeshSettings`: the framework's typed settings tree.

Values come from layers (highest first): command line, environment, `application-{profile}.yaml`,
`application.yaml`, decorator parameters, defaults. See `mesh_framework.config.loader`.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self, TypeVar, cast
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .environment import EMBEDDED_PORT
from .sources import ACTIVE_SOURCES

if TYPE_CHECKING:
    from . import entries as _entries
    from .entries import (
        A2aPeerSettings,
        ClientCredentialsSettings,
        CommandToolSettings,
        McpLoginSettings,
        OpenApiAuthSettings,
        OpenApiServiceSettings,
        StaticToken,
        WebStaticMount,
    )

__all__ = [
    "A2aPeerSettings",
    "A2aSettings",
    "AgentSettings",
    "AuthSettings",
    "ClientCredentialsSettings",
    "ClientSettings",
    "CommandSettings",
    "CommandToolSettings",
    "ConfigSettings",
    "HealthSettings",
    "LlmSettings",
    "LlmToolSettings",
    "LlmVendorSettings",
    "JobRetentionSettings",
    "JobSettings",
    "McpLoginSettings",
    "McpSettings",
    "MediaSettings",
    "MeshCallSettings",
    "MeshSettings",
    "MetricsSettings",
    "OpenApiAuthSettings",
    "OpenApiServiceSettings",
    "PromptSettings",
    "RegistrySettings",
    "ResourceSettings",
    "ScanSettings",
    "ServerSettings",
    "SkillSettings",
    "StatusSettings",
    "StaticToken",
    "TlsSettings",
    "ToolSettings",
    "TracingSettings",
    "WebCorsSettings",
    "WebSettings",
    "WebStaticMount",
    "field_default",
    "section_defaults",
    "section_model",
]

# Start-up cost: sections defer their build; loading builds the validator of a section given values only,
# and makes the others from their declared defaults (`config/loader.py`; each default must be what
# validating it gives). A section field defaults to `{}` (`_unset`), which the enclosing model's schema
# validates when it is validated whole: `default_factory=Section` would build each section's own validator.
# No `from __future__ import annotations` here: pydantic need not evaluate some 200 annotation strings.
_Section = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


def _unset() -> Any:
    """A section's default: `{}`, made the section by the enclosing model's schema (see `_Section`)."""
    return {}


# What a section field is assigned (`agent: AgentSettings = _SECTION`): one `Field()` written once, which
# pydantic copies for each field.
_SECTION: Any = Field(default_factory=_unset)

_Model = TypeVar("_Model", bound=BaseModel)


def section_defaults(model: type[_Model]) -> _Model:
    """The section `model` with every default, as validating `{}` gives it, made without building its
    validator (loading makes the sections given no value so). Each default is taken as declared: one that
    a validator would change is a mistake, which tests/settings/test_settings_sections.py catches."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if info.is_required():
            raise TypeError(f"{model.__name__}.{name}: a section's settings all have defaults")
        values[name] = field_default(info)
    return model.model_construct(_fields_set=set(), **values)


def field_default(info: FieldInfo) -> Any:
    """The default of a section's field (one that has a default), as `section_defaults` makes it."""
    factory = info.default_factory
    if factory is _unset:
        return section_defaults(section_model(info))
    if factory is not None:
        # the sections' factories take no data (`get_default` reads each one's signature to know)
        return cast("Callable[[], Any]", factory)()
    return info.get_default()


def section_model(info: FieldInfo) -> type[BaseModel]:
    """The model of a section field (one defaulting to `_unset`)."""
    model = info.annotation
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"a section field is annotated with its model, not {model!r}")
    return model


# The constraint of optional numbers, written once: each `Annotated[...]` written out costs ~20 µs at import.
_PositiveInt = Annotated[int, Field(gt=0)]
_PositiveFloat = Annotated[float, Field(gt=0)]


# pydantic asks each default factory whether it takes the validated data (its signature): for the builtins
# `list` and `dict` that parses their text signature (150 µs for `list`), for these a lookup.
def _list() -> list[Any]:
    return []


def _dict() -> dict[str, Any]:
    return {}


class AgentSettings(BaseModel):
    model_config = _Section

    name: str = Field("mesh-agent", description="Agent name, advertised to the registry")
    version: str = Field("1.0.0", description="Agent version, advertised to the registry")
    description: str = Field("", description="What the agent does (registry listings)")
    id: str | None = Field(None, description="Agent id; default {name}-{8 hex}")
    namespace: str = Field("default", description="MCP Mesh namespace the agent joins")
    host: str | None = Field(None, description="Host advertised to other agents (MCP_MESH_HTTP_HOST)")

    @field_validator("name")
    @classmethod
    def _name_is_usable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("id")
    @classmethod
    def _id_is_mesh_safe(cls, value: str | None) -> str | None:
        if value is not None and (
            not value or any(not (c.islower() or c.isdigit() or c == "-") for c in value)
        ):
            raise ValueError("an agent id may hold only lowercase letters, digits and hyphens")
        return value


class ServerSettings(BaseModel):
    model_config = _Section

    host: str | None = Field(None, description="Bind address; default 127.0.0.1 for local runs, else 0.0.0.0")
    port: int = Field(8080, ge=0, le=65535, description="Port to listen on; 0 picks a free one")
    path: str = Field("/mcp", description="Path of the MCP endpoint")
    max_body_bytes: int = Field(
        4 * 1024 * 1024, gt=0, description="Largest request body accepted (larger: HTTP 413)"
    )
    keep_alive_timeout: int = Field(
        65, gt=0, description="Seconds an idle keep-alive connection stays open (above clients' pool expiry)"
    )
    body_timeout: float = Field(
        30.0, gt=0, description="Seconds a client may take to send a request body (slower: HTTP 408)"
    )
    header_timeout: float = Field(
        30.0, gt=0, description="Seconds a client may take to send a request's headers (slower: HTTP 408)"
    )
    first_byte_timeout: float = Field(
        10.0, gt=0, description="Seconds a new connection may stay silent before it is closed"
    )
    max_header_bytes: int = Field(
        64 * 1024,
        ge=1024,
        description="Largest request head (request line and headers) accepted (larger: HTTP 431)",
    )
    max_concurrency: _PositiveInt | None = Field(
        1000,
        description="Requests served at once, idle connections not counted (more: HTTP 503); none: unbounded",
    )
    host_check: bool | None = Field(None, description="Host/Origin checks; default on for loopback binds")
    allowed_hosts: list[str] = Field(
        default_factory=_list, description="Host headers accepted when checks are on"
    )
    allowed_origins: list[str] = Field(
        default_factory=_list, description="Origins accepted when checks are on"
    )
    instructions: str | None = Field(None, description="Server instructions sent to MCP clients")
    request_state_key: SecretStr | None = Field(
        None, description="Key signing multi-round-trip requestState; share it between replicas"
    )
    shutdown_grace: float = Field(
        10.0,
        ge=0,
        description="Seconds a stopping agent gives calls in flight and running jobs (new calls get 503 "
        "meanwhile; jobs still running then end failed)",
    )

    @field_validator("path")
    @classmethod
    def _path_is_absolute(cls, value: str) -> str:
        if not value.startswith("/") or (value.endswith("/") and value != "/"):
            raise ValueError("must start with '/' and not end with '/', e.g. '/mcp'")
        return value


class RegistrySettings(BaseModel):
    model_config = _Section

    url: str | None = Field(
        None,
        description="MCP Mesh registry URL, http(s)://host[:port] (several comma-separated); none runs the "
        "embedded registry",
    )
    enabled: bool = Field(True, description="Join a mesh at all (false: serve tools alone)")
    embedded_port: int = Field(
        EMBEDDED_PORT,
        ge=0,
        le=65535,
        description="Port of the embedded registry used (or started) when no url is set",
    )
    heartbeat_interval: float = Field(5.0, gt=0, description="Seconds between heartbeats")
    push: bool = Field(
        True,
        description="Follow the embedded registry's topology stream (changes in milliseconds); "
        "false, or a registry without it (MCP Mesh's): heartbeat only",
    )
    timeout: float = Field(10.0, gt=0, description="Seconds a registry request may take")
    audit_history: int = Field(
        1000,
        ge=1,
        description="Resolution audit events the embedded registry keeps for GET /events and mesh explain "
        "(the oldest go first)",
    )
    token: SecretStr | None = Field(
        None, description="Bearer token: sent to the registry; the embedded registry requires it when set"
    )
    urls: list[str] = Field(
        default_factory=_list,
        description="Several registry URLs (replicas), tried in turn on failure; MCP_MESH_REGISTRY_URL may "
        "list them comma-separated",
    )

    @field_validator("urls", mode="before")
    @classmethod
    def _split_urls(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("url")
    @classmethod
    def _url_is_usable(cls, value: str | None) -> str | None:
        for part in (value or "").split(","):
            _check_registry_url(part.strip())
        return value

    @field_validator("urls")
    @classmethod
    def _urls_are_usable(cls, value: list[str]) -> list[str]:
        for url in value:
            _check_registry_url(url)
        return value

    def endpoints(self) -> list[str]:
        """Every registry URL to use, in order (`urls`, else `url` split at commas); empty: embedded."""
        if self.urls:
            return list(self.urls)
        return [part.strip() for part in (self.url or "").split(",") if part.strip()]


def _check_registry_url(url: str) -> None:
    """ValueError unless `url` is an http(s) URL with a host (and a valid port, if it names one)."""
    if not url:
        return
    example = "e.g. http://registry.example.com:8000"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a registry URL ({exc}); {example}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL with a host; {example}")
    if port == 0:
        raise ValueError(f"{url!r} names port 0; {example}")


class TlsSettings(BaseModel):
    """TLS of this agent's endpoint (and of `mesh registry`), and how its clients verify servers."""

    model_config = _Section

    cert_file: str | None = Field(None, description="PEM certificate (chain) to serve HTTPS with")
    key_file: str | None = Field(None, description="PEM private key of cert_file")
    ca_file: str | None = Field(
        None, description="PEM CA bundle clients verify servers with (default: the system's CAs)"
    )
    verify: bool = Field(True, description="Verify server certificates (false only for experiments)")
    require_client_cert: bool = Field(
        False, description="Mutual TLS: clients must present a certificate signed by ca_file"
    )
    client_cert_file: str | None = Field(
        None, description="Certificate presented to servers (mutual TLS; default cert_file when required)"
    )
    client_key_file: str | None = Field(None, description="Key of client_cert_file")
    mesh_https: bool | None = Field(
        None, description="Call other agents over https (default: on when this agent serves TLS)"
    )


class AuthSettings(BaseModel):
    """MCP authorization: bearer tokens on this agent's endpoint, and the credentials it sends."""

    model_config = _Section

    tokens: list["_entries.StaticToken"] = Field(
        default_factory=_list, description="Static tokens accepted, each with its scopes"
    )
    jwks_url: str | None = Field(None, description="JWKS URL of the authorization server (JWT access tokens)")
    issuer: str | None = Field(None, description="Expected JWT 'iss'")
    audience: str | None = Field(None, description="Expected JWT 'aud' (default: resource)")
    algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "ES256"], description="JWT signature algorithms accepted"
    )
    resource: str | None = Field(
        None, description="This server's canonical URI (default: derived from the request: https://h/mcp)"
    )
    authorization_servers: list[str] = Field(
        default_factory=_list, description="Authorization servers named in the protected-resource metadata"
    )
    required_scopes: list[str] = Field(default_factory=_list, description="Scopes every request needs")
    client_token: SecretStr | None = Field(None, description="Bearer token sent on calls to other agents")
    dependency_tokens: dict[str, SecretStr] = Field(
        default_factory=_dict, description="Bearer token per capability called (overrides client_token)"
    )
    client_credentials: "_entries.ClientCredentialsSettings | None" = Field(
        None, description="OAuth client whose access tokens are sent on calls to other agents"
    )
    dependency_clients: dict[str, "_entries.ClientCredentialsSettings"] = Field(
        default_factory=_dict,
        description="OAuth client per capability, catalog server or A2A peer called (overrides "
        "client_credentials)",
    )
    leeway: float = Field(30.0, ge=0, description="Seconds of clock skew allowed on JWT exp, nbf and iat")
    jwks_refresh_cooldown: float = Field(
        5.0, ge=0, description="Seconds between JWKS fetches a token with an unknown key id may cause"
    )

    @field_validator("client_credentials")
    @classmethod
    def _named_server(cls, value: "ClientCredentialsSettings | None") -> "ClientCredentialsSettings | None":
        if value is not None and value.discovered:  # the mesh's agents are many: one server, named
            raise ValueError("set token_url, or issuer to find the token endpoint in its metadata")
        return value

    @model_validator(mode="after")
    def _one_credential(self) -> Self:
        if self.client_token is not None and self.client_credentials is not None:
            raise ValueError("set client_token or client_credentials, not both")
        both = sorted(set(self.dependency_tokens) & set(self.dependency_clients))
        if both:
            raise ValueError(
                f"{', '.join(both)}: set in both dependency_tokens and dependency_clients; keep one"
            )
        return self

    @property
    def enabled(self) -> bool:
        return bool(self.tokens or self.jwks_url)


class MeshCallSettings(BaseModel):
    """How calls between agents carry the context of the call that made them."""

    model_config = _Section

    propagate_headers: list[str] = Field(
        default_factory=_list,
        description="Headers of an incoming call forwarded on the calls it makes: exact names or 'prefix*', "
        "any case (MCP_MESH_PROPAGATE_HEADERS, comma-separated); x-mesh-timeout always travels",
    )

    @field_validator("propagate_headers", mode="before")
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("propagate_headers")
    @classmethod
    def _valid_patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            name = pattern.removesuffix("*")
            if not name or "*" in name or any(c.isspace() or c in ':,"' for c in name):
                raise ValueError(
                    f"{pattern!r} is not a header name or 'prefix*' pattern, "
                    "e.g. 'x-tenant-id' or 'x-trace-*'"
                )
        return value


class ScanSettings(BaseModel):
    model_config = _Section

    packages: list[str] = Field(default_factory=_list, description="Packages to scan; default the app's")
    exclude: list[str] = Field(default_factory=_list, description="Module-name patterns not to import")


class AutoConfigurationSettings(BaseModel):
    """Auto-configurations: `@configuration` classes installed packages contribute (entry point group
    `mesh_framework.auto_configuration`)."""

    model_config = _Section

    exclude: list[str] = Field(
        default_factory=_list, description="Auto-configurations (entry point names) not to apply"
    )


class ToolSettings(BaseModel):
    model_config = _Section

    timeout: _PositiveFloat | None = Field(30.0, description="Seconds one tool call may take")
    mask_error_details: bool = Field(
        False,
        description="Tell remote callers only that a tool failed and an error id (logged with the "
        "exception), not the exception's type and message",
    )
    schema_strict: bool = Field(
        False,
        description="Refuse to start when a tool's or an expected schema loses something in canonical form "
        "(verdict WARN), not only when it has none (BLOCK); a tool with output_schema_strict=False is exempt",
    )


class JobRetentionSettings(BaseModel):
    model_config = _Section

    max_count: int = Field(100, ge=0, description="Finished local jobs kept (oldest dropped)")
    max_age: float = Field(3600.0, gt=0, description="Seconds a finished local job is kept")


class JobSettings(BaseModel):
    """Background tools and MCP Mesh jobs (`@mesh_tool(background=True)`, `task=True`)."""

    model_config = _Section

    max_concurrent: int = Field(
        16,
        gt=0,
        description="Jobs this agent runs at once; a tool's own limit is @mesh_tool(max_concurrent=N)",
    )
    tools: dict[str, _PositiveInt] = Field(
        default_factory=_dict, description="Per-tool limits of running jobs, by tool name"
    )
    queue: bool = Field(
        False, description="Queue a background call over the limit (false: reject it at once)"
    )
    max_queued: int = Field(100, ge=0, description="Queued jobs kept before calls are rejected")
    timeout: _PositiveFloat | None = Field(
        None, description="Seconds a job may run (none: unbounded; a tool's timeout= applies to it too)"
    )
    retention: JobRetentionSettings = _SECTION
    serve_tools: bool | None = Field(
        None,
        description="Serve __mesh_job_status/_result/_cancel and get_server_status (none: when the agent "
        "has a background or task tool, or joins a mesh with tools of its own, as mcp-mesh agents do; "
        "not on an agent of web routes only)",
    )
    claim: bool = Field(True, description="Claim registry jobs for this agent's background and task tools")
    claim_interval: float = Field(
        0.5, gt=0, description="First seconds between claim polls of the registry (doubles to 5 s while idle)"
    )


class HealthSettings(BaseModel):
    """Health indicators: how long a verdict is cached, how long one check may take, what `/health` shows."""

    model_config = _Section

    cache_ttl: float = Field(
        15.0, gt=0, description="Seconds a health verdict is reused (and the checks re-run in the background)"
    )
    timeout: float = Field(
        5.0, gt=0, description="Seconds one health check may take; a slower, raising or hanging one is DOWN"
    )
    show_details: Literal["never", "always"] = Field(
        "never", description="Show each indicator's status and details on /health (never: status only)"
    )


class MetricsSettings(BaseModel):
    """Prometheus metrics on `/metrics`."""

    model_config = _Section

    enabled: bool = Field(True, description="Serve /metrics and record metrics")


class CommandSettings(BaseModel):
    """Click (or Typer) commands served as tools (`@mcp_command`, `commands.expose`)."""

    model_config = _Section

    expose: list[str] = Field(
        default_factory=_list,
        description="Served as tools: 'package.module:attribute' (a group or command), or a module or "
        "package (its outermost commands and groups)",
    )
    background: bool = Field(
        True, description="Commands run as background jobs; false: inline, answering the output"
    )
    timeout: _PositiveFloat | None = Field(
        3600.0, description="Seconds a command may run before its process is stopped"
    )
    kill_grace: float = Field(
        2.0, ge=0, description="Seconds between SIGTERM and SIGKILL when a command is stopped"
    )
    output_lines: int = Field(1000, gt=0, description="Last lines of output kept per run")
    tools: dict[str, "_entries.CommandToolSettings"] = Field(
        default_factory=_dict, description="Per command tool, by tool name: background, timeout"
    )


class StatusSettings(BaseModel):
    """The `@status_section` endpoint."""

    model_config = _Section

    path: str = Field("/status", description="Path of the status endpoint (GET, ?section=NAME, ?live=true)")


class McpSettings(BaseModel):
    """MCP servers beyond the mesh: the catalog, connection behaviour and the gateway; OpenAPI services."""

    model_config = _Section

    servers: dict[str, dict[str, Any]] = Field(
        default_factory=_dict,
        description="Catalog entries by name, the fields of mcp-servers.json (type, command, args, env, "
        "cwd, url, headers)",
    )
    catalog: list[str] = Field(
        default_factory=_list,
        description="Catalog files or folders of *.json ({'mcpServers': ...} or VS Code's {'servers': ...})",
    )
    default_servers: list[str] = Field(
        default_factory=_list, description="Servers a coding agent or LLM gets unless a request names others"
    )
    gateway: list[str] = Field(
        default_factory=_list, description="Catalog servers whose tools this agent re-serves into the mesh"
    )
    fail_fast: bool = Field(False, description="Fail start-up when a configured server cannot be reached")
    connect_timeout: float = Field(
        10.0, gt=0, description="Seconds to start/connect a server and list its tools"
    )
    call_timeout: _PositiveFloat | None = Field(
        None, description="Seconds one tool call may take (default: tools.timeout)"
    )
    retry_interval: float = Field(
        5.0, gt=0, description="Seconds between attempts to reach a gateway server that is down"
    )
    openapi: list["_entries.OpenApiServiceSettings"] = Field(
        default_factory=_list, description="HTTP services whose OpenAPI operations are tools of this agent"
    )
    oauth_client_id_url: str | None = Field(
        None,
        description="`mesh catalog login`: https URL of your client ID metadata document (the client id "
        "where the authorization server supports them)",
    )
    oauth_client_id: str | None = Field(
        None,
        description="`mesh catalog login`: a client id registered at an authorization server without CIMD",
    )
    oauth_clients: dict[str, "_entries.McpLoginSettings"] = Field(
        default_factory=_dict,
        description="`mesh catalog login`: the client per catalog server (replaces the two above)",
    )

    @field_validator("oauth_client_id_url")
    @classmethod
    def _document_url(cls, value: str | None) -> str | None:
        return value if value is None else _entries.client_document_url(value)

    def login_client(self, server: str) -> "McpLoginSettings":
        """The client `mesh catalog login` signs in to catalog server `server` with: its own entry in
        `oauth_clients` (whole: nothing taken from the others), else the agent-wide two."""
        own = self.oauth_clients.get(server)
        if own is not None:
            return own
        return _entries.McpLoginSettings(
            client_id_url=self.oauth_client_id_url, client_id=self.oauth_client_id
        )

    @field_validator("openapi")
    @classmethod
    def _distinct_services(cls, value: "list[OpenApiServiceSettings]") -> "list[OpenApiServiceSettings]":
        names = [service.name for service in value]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"service name(s) {', '.join(twice)} used more than once; names are unique")
        return value

    @field_validator("catalog", "default_servers", "gateway", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


class LlmVendorSettings(BaseModel):
    """How to reach one LLM vendor's API (`llm.vendors.openai`, `llm.vendors.anthropic`)."""

    model_config = _Section

    base_url: str | None = Field(None, description="API base URL (an OpenAI-compatible server: vLLM, Ollama)")
    api_key: SecretStr | None = Field(None, description="API key; default the vendor SDK's own env variable")
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(2, ge=0)


class LlmToolSettings(BaseModel):
    """How one `@mesh_llm` tool runs (`llm.<tool name>`), or every one by default (`llm.defaults`)."""

    model_config = _Section

    provider: str | dict[str, Any] | None = Field(
        None, description="'vendor/model' for a direct call, or a selector of a mesh provider agent"
    )
    model: str | None = Field(None, description="Model override (MESH_LLM_MODEL)")
    filter: Any = Field(None, description="Which mesh tools the LLM gets: selector(s) or '*'")
    filter_mode: Literal["all", "best_match", "*"] | None = Field(
        None, description="all matches, the best per capability, or every tool"
    )
    system_prompt: str | None = Field(None, description="Inline text, or file://path (a Jinja2 template)")
    max_iterations: _PositiveInt | None = Field(None, description="MESH_LLM_MAX_ITERATIONS")
    parallel_tool_calls: bool | None = Field(None, description="Let the model ask for several tools at once")
    temperature: float | None = Field(None, description="Sampling temperature")
    max_tokens: _PositiveInt | None = Field(None, description="Longest answer, in tokens")
    model_params: dict[str, Any] = Field(default_factory=_dict, description="Other parameters for the model")
    tools: list[str] | None = Field(None, description="Catalog servers whose tools the LLM also gets")


class LlmSettings(BaseModel):
    """LLM tools: `llm.defaults`, `llm.<tool name>` sections and vendor APIs (`llm.vendors.openai`)."""

    model_config = ConfigDict(extra="allow", validate_default=True, defer_build=True)

    defaults: LlmToolSettings = _SECTION
    vendors: dict[str, LlmVendorSettings] = Field(
        default_factory=_dict,
        description="Per vendor (openai, anthropic): base_url, api_key, timeout, max_retries",
    )

    def for_tool(self, name: str) -> LlmToolSettings | None:
        """The validated `llm.<name>` section, or None."""
        raw = (self.model_extra or {}).get(name)
        return LlmToolSettings.model_validate(raw) if raw is not None else None

    def vendor(self, name: str) -> LlmVendorSettings:
        return self.vendors.get(name) or section_defaults(LlmVendorSettings)


class ConfigSettings(BaseModel):
    """How strictly settings are read."""

    model_config = _Section

    strict: bool = Field(
        False,
        description="A top-level section nothing reads stops start-up instead of being warned (a misspelt "
        "key inside a read section always stops it)",
    )


class ClientSettings(BaseModel):
    """The agent's pooled HTTP client (calls to other agents, the registry)."""

    model_config = _Section

    keepalive_expiry: float = Field(
        4.0,
        gt=0,
        description="Seconds an idle pooled connection is kept (below peers' keep-alive, 5 s in uvicorn)",
    )


class LoggingSettings(BaseModel):
    model_config = _Section

    level: str = Field("INFO", description="DEBUG, INFO, WARNING, ERROR or CRITICAL")
    format: Literal["text", "json"] = Field(
        "text",
        description="text, or json: one object a line with agent, tool, request and trace ids",
    )

    @field_validator("level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        upper = value.upper()
        if upper not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return upper


class TracingSettings(BaseModel):
    """OpenTelemetry traces (the SDK and the OTLP exporter come with the `otel` extra)."""

    model_config = _Section

    enabled: bool = Field(False, description="Record spans and carry trace context to other agents")
    endpoint: str | None = Field(
        None,
        description="OTLP/HTTP traces URL; default OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, "
        "OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318/v1/traces",
    )
    file: str | None = Field(
        None, description="Where the file exporter appends spans, one JSON object a line"
    )
    exporter: Literal["otlp", "console", "file", "none"] = Field(
        "otlp", description="otlp (HTTP), console, file (JSON lines in tracing.file) or none (propagate only)"
    )
    console_traces_per_second: int = Field(
        10,
        ge=0,
        description="New traces a second the mesh console keeps of this agent's calls without "
        "OpenTelemetry (every call is counted; a caller's trace is followed)",
    )

    @field_validator("exporter")
    @classmethod
    def _file_named(cls, value: str, info: ValidationInfo) -> str:
        if value == "file" and info.data.get("enabled") and not info.data.get("file"):
            raise ValueError("'file' needs tracing.file (MESH_TRACING__FILE), the path to append spans to")
        return value


class PromptSettings(BaseModel):
    """Prompts kept as Markdown files with YAML front matter (`@mesh_prompt` functions need no setting)."""

    model_config = _Section

    folders: list[str] = Field(
        default_factory=lambda: ["prompts"],
        description="Folders of *.md prompts, relative to the config folder, else the app package; "
        "a missing default folder is skipped",
    )


class ResourceSettings(BaseModel):
    """Static files served as MCP resources (`@mesh_resource` functions need no setting)."""

    model_config = _Section

    files: list[str] = Field(
        default_factory=_list, description="Files or folders to serve, relative to the config folder"
    )
    uri_prefix: str = Field(
        "file:///", description="URI prefix of static files (then the path below the listed entry's parent)"
    )


class SkillSettings(BaseModel):
    """Agent Skills served over MCP (the skills extension): each skill a folder holding a SKILL.md."""

    model_config = _Section

    folders: list[str] = Field(
        default_factory=lambda: ["skills"],
        description="Folders of skills, relative to the folder holding the config folder, else the app "
        "package; a missing default folder is skipped",
    )


class WebCorsSettings(BaseModel):
    """CORS for the agent's web routes and static files (Starlette's CORSMiddleware); off while no origin
    is allowed. The MCP endpoint never passes through it."""

    model_config = _Section

    allow_origins: list[str] = Field(
        default_factory=_list, description="Origins allowed to call the routes ('*' for any); empty: CORS off"
    )
    allow_origin_regex: str | None = Field(None, description="A regular expression of allowed origins")
    allow_methods: list[str] = Field(default_factory=lambda: ["GET"], description="Methods allowed")
    allow_headers: list[str] = Field(
        default_factory=_list, description="Request headers allowed cross-origin"
    )
    allow_credentials: bool = Field(False, description="Allow cookies and credentials cross-origin")
    expose_headers: list[str] = Field(
        default_factory=_list, description="Response headers a browser may read"
    )
    max_age: int = Field(600, ge=0, description="Seconds a browser keeps a preflight")

    @property
    def enabled(self) -> bool:
        return bool(self.allow_origins or self.allow_origin_regex)


class WebSettings(BaseModel):
    """Web routes (`@mesh_route`), static files and CORS, served beside the MCP endpoint."""

    model_config = _Section

    static: list["_entries.WebStaticMount"] = Field(
        default_factory=_list, description="Static folders to serve, e.g. [{path: /, directory: static}]"
    )
    cors: WebCorsSettings = _SECTION


class A2aSettings(BaseModel):
    """A2A: skills served (`@mesh_a2a`) and peers called (`A2aClient`)."""

    model_config = _Section

    path: str = Field("/a2a", description="Where the A2A JSON-RPC endpoints are served")
    public_url: str | None = Field(
        None,
        description="Base URL the Agent Cards advertise (behind a proxy); unset: "
        "http(s)://{agent.host}:{the bound port}",
    )
    max_tasks: int = Field(
        10_000, gt=0, description="Tasks kept in memory (past it, the oldest ended ones are dropped)"
    )
    max_task_bytes: int = Field(
        1024 * 1024,
        gt=0,
        description="Bytes one task may hold (history and artifacts): past it the oldest history goes, "
        "and a result larger than this fails the task",
    )
    peers: dict[str, "_entries.A2aPeerSettings"] = Field(
        default_factory=_dict, description="A2A agents called, by the name of the A2aClient parameter"
    )

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        if not value.startswith("/") or value == "/" or value.endswith("/"):
            raise ValueError("must start with '/' and not end with '/', e.g. /a2a")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(
                "must be an http(s) URL without query or fragment, e.g. https://agents.example.com"
            )
        return value.rstrip("/")


class MediaSettings(BaseModel):
    """The media store: images, PDFs and other files passed through the mesh as URIs (MCP Mesh's names
    MCP_MESH_MEDIA_STORAGE, _PATH, _PREFIX, _BUCKET and _ENDPOINT set the same values)."""

    model_config = _Section

    storage: Literal["local", "s3"] = Field(
        "local", description="local: a folder (file:// URIs); s3: an S3-compatible store (s3:// URIs)"
    )
    path: str = Field("/tmp/mcp-mesh-media", description="The local store's folder (MCP Mesh's default)")
    prefix: str = Field("media/", description="Prepended to every file name (folder or key prefix)")
    bucket: str | None = Field(None, description="The S3 bucket (required with storage: s3)")
    endpoint: str | None = Field(None, description="An S3-compatible endpoint URL; unset: AWS")
    region: str | None = Field(None, description="The S3 region; unset: boto3's default")
    inline_max_bytes: int = Field(
        16 * 1024,
        ge=0,
        description="media_result() embeds media up to this size in the tool result; larger: a resource_link",
    )
    max_upload_bytes: int = Field(
        4 * 1024 * 1024, gt=0, description="Largest file save_upload() stores (larger: HTTP 413)"
    )
    upload_types: str = Field(
        "*/*", description="MIME types save_upload() accepts, comma-separated (image/*,application/pdf)"
    )

    @field_validator("prefix")
    @classmethod
    def _relative_prefix(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.split("/"):
            raise ValueError("must be a relative prefix without '..', e.g. media/")
        return value

    @field_validator("bucket")
    @classmethod
    def _bucket_given(cls, value: str | None, info: ValidationInfo) -> str | None:
        if not value and info.data.get("storage") == "s3":
            raise ValueError("is required with storage: s3 (MCP_MESH_MEDIA_STORAGE_BUCKET)")
        return value


class MeshSettings(BaseSettings):
    """Every framework setting. Sections the framework does not know are kept for `@config_properties`."""

    # Loading validates the sections given values, each alone (`config/loader.py`); the validator of the
    # whole tree is built only to validate it whole (a problem to report, or `MeshSettings(...)` in code).
    model_config = SettingsConfigDict(extra="allow", validate_default=True, defer_build=True)

    profiles: list[str] = Field(default_factory=_list, description="Active profiles (MESH_PROFILES_ACTIVE)")
    agent: AgentSettings = _SECTION
    server: ServerSettings = _SECTION
    registry: RegistrySettings = _SECTION
    tls: TlsSettings = _SECTION
    auth: AuthSettings = _SECTION
    mesh: MeshCallSettings = _SECTION
    scan: ScanSettings = _SECTION
    auto_configuration: AutoConfigurationSettings = _SECTION
    tools: ToolSettings = _SECTION
    jobs: JobSettings = _SECTION
    logging: LoggingSettings = _SECTION
    client: ClientSettings = _SECTION
    tracing: TracingSettings = _SECTION
    mcp: McpSettings = _SECTION
    health: HealthSettings = _SECTION
    metrics: MetricsSettings = _SECTION
    llm: LlmSettings = _SECTION
    config: ConfigSettings = _SECTION
    commands: CommandSettings = _SECTION
    status: StatusSettings = _SECTION
    prompts: PromptSettings = _SECTION
    resources: ResourceSettings = _SECTION
    skills: SkillSettings = _SECTION
    web: WebSettings = _SECTION
    media: MediaSettings = _SECTION
    a2a: A2aSettings = _SECTION

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources = ACTIVE_SOURCES.get()
        return sources if sources is not None else (init_settings,)

    def extra_section(self, prefix: str) -> Any:
        """The raw data of a section the framework does not model (dotted prefix), or None."""
        node: Any = self.model_extra or {}
        for part in prefix.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node


# The models of list and mapping entries (`config/entries.py`) are created when first needed: a field holding
# them names them as `"_entries.Model"`, which pydantic resolves (through the object below, importing the
# module) when it builds a validator, and `settings.StaticToken` and the like load them too.
if not TYPE_CHECKING:

    class _Entries:
        def __getattr__(self, name: str) -> Any:
            from . import entries

            return getattr(entries, name)

    _entries = _Entries()
    _ENTRY_NAMES = frozenset(
        {
            "A2aPeerSettings",
            "ClientCredentialsSettings",
            "CommandToolSettings",
            "McpLoginSettings",
            "OpenApiAuthSettings",
            "OpenApiServiceSettings",
            "StaticToken",
            "WebStaticMount",
        }
    )

    def __getattr__(name: str) -> Any:
        if name in _ENTRY_NAMES:
            return getattr(_entries, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
