"""What the vendor adapters share: their client's set-up and closing, stream relaying, argument parsing,
API keys, and one-line provider errors."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from abc import abstractmethod
from collections.abc import AsyncGenerator, Mapping
from types import ModuleType
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast

import httpx2
from pydantic import SecretStr

from ...config.settings import LlmVendorSettings
from ...mesh.http_pool import asyncio_transport
from ..model import LlmError, LlmModel, LlmProviderError
from ..types import LlmTurn

__all__ = [
    "SdkClient",
    "SdkStream",
    "VendorModel",
    "api_key_of",
    "broken_stream",
    "log_environment",
    "parse_arguments",
    "provider_error",
    "retried",
    "sdk_environment",
    "sdk_http_client",
    "status_text",
    "without_none",
]

_PLACEHOLDER_KEY = "unused"

logger = logging.getLogger("mesh_framework.llm")

# The vendor SDKs' own pool limits (openai and anthropic agree), kept with our network layer.
_SDK_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)


def sdk_http_client(default_client: type[httpx2.AsyncClient]) -> httpx2.AsyncClient:
    """The HTTP client for a vendor SDK we create: the SDK's own default client class (its timeout,
    redirects and proxies from the environment) on asyncio's network layer (`mesh/asyncio_network.py`)."""
    return default_client(transport=asyncio_transport(limits=_SDK_LIMITS))


class SdkClient(Protocol):
    """What the adapters use of a vendor SDK's client (`openai.AsyncOpenAI`, `anthropic.AsyncAnthropic`)."""

    @property
    def base_url(self) -> httpx2.URL: ...

    @property
    def max_retries(self) -> int: ...

    @property
    def timeout(self) -> object: ...

    @property
    def api_key(self) -> str | None: ...

    async def close(self) -> None: ...


class SdkStream(Protocol):
    """A vendor SDK's stream of events (`openai.AsyncStream`, `anthropic.AsyncStream`)."""

    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=SdkClient)


class VendorModel(LlmModel, Generic[ClientT]):
    """What the adapters share: made from `llm.vendors.<vendor>` settings or around a given SDK client (whose
    base URL, retries and timeout then count), shown without their key, errors read alike from both SDKs.

    An adapter names its `vendor` and its SDK module `sdk` (whose `APITimeoutError`, `APIConnectionError`
    and `APIStatusError` are read by `_provider_error`), the SDK's base error `sdk_error`, and the function
    that creates its client, `_sdk_client` (its module's `new_client`).
    """

    vendor: ClassVar[str]
    # The SDK's own environment variables: its keys (in the order it reads them) and its base URL.
    key_env: ClassVar[tuple[str, ...]]
    base_url_env: ClassVar[str]
    sdk: ClassVar[ModuleType]
    sdk_error: ClassVar[type[Exception]]
    model: str
    base_url: str

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | SecretStr | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        client: ClientT | None = None,
    ) -> None:
        self.model = model
        self.name = f"{self.vendor}/{model}"
        self.timeout = timeout
        self._owns_client = client is None
        if client is None:
            read = sdk_environment(base_url, api_key, self.key_env, self.base_url_env)
            client = self._new_client(base_url, api_key, timeout, max_retries)
            log_environment(self.name, self.vendor, read)
        self._client: ClientT = client
        self.base_url = str(client.base_url).rstrip("/")
        self.max_retries = client.max_retries
        if isinstance(client.timeout, int | float):
            self.timeout = client.timeout

    @staticmethod
    @abstractmethod
    def _sdk_client(
        base_url: str | None, api_key: str | SecretStr | None, timeout: float, max_retries: int
    ) -> SdkClient:
        """The adapter module's `new_client`: the SDK client for these settings, or LlmError saying why
        it cannot be made."""

    def _new_client(
        self, base_url: str | None, api_key: str | SecretStr | None, timeout: float, max_retries: int
    ) -> ClientT:
        """The SDK client this model creates (and closes), or LlmError naming the model and saying why it
        cannot."""
        try:
            return cast(ClientT, self._sdk_client(base_url, api_key, timeout, max_retries))
        except LlmError as error:
            raise LlmError(f"{self.name}: {error}") from None

    @classmethod
    def from_settings(cls, model: str, settings: LlmVendorSettings | None = None) -> Self:
        settings = settings or LlmVendorSettings()
        return cls(
            model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )

    async def _relay(
        self, events: SdkStream, deltas: AsyncGenerator[str | LlmTurn]
    ) -> AsyncGenerator[str | LlmTurn]:
        """`deltas`, the adapter's reading of the SDK's `events`, passed on (`LlmModel.stream`); a stream that
        breaks is a LlmProviderError, and `events` are closed however it ends."""
        try:
            async with contextlib.aclosing(deltas):
                async for delta in deltas:
                    yield delta
        except (self.sdk_error, httpx2.HTTPError) as error:
            raise self._provider_error(error, streaming=True) from None
        finally:
            await events.close()  # a consumer that left early: the vendor sees the connection close

    async def aclose(self) -> None:
        """Closes the SDK client, unless it was given (then its owner closes it)."""
        if self._owns_client:
            await self._client.close()

    def _provider_error(self, error: Exception, *, streaming: bool = False) -> LlmProviderError:
        sdk = self.sdk
        retries = "" if streaming else retried(self.max_retries)
        if streaming and not isinstance(error, sdk.APITimeoutError):
            what = broken_stream(error)
        elif isinstance(error, sdk.APITimeoutError):
            what = f"timed out after {self.timeout:g} s{retries}"
        elif isinstance(error, sdk.APIConnectionError):
            what = f"cannot connect{retries}: {error.__cause__ or error.message}"
        elif isinstance(error, sdk.APIStatusError):
            what = status_text(error.status_code, error.body, self.max_retries)
        else:
            what = f"{type(error).__name__}: {error}"
        return provider_error(self.vendor, self.model, self.base_url, what, secret=self._client.api_key)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"


_MAX_DETAIL = 300


def parse_arguments(raw: str) -> dict[str, Any] | None:
    """A tool call's JSON arguments as a dict; None when they are not a JSON object. Empty means none."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def api_key_of(
    key: str | SecretStr | None, base_url: str | None, env: tuple[str, ...], base_url_env: str = ""
) -> str | None:
    """The key to give the SDK: the configured one, else None (the SDK reads `env`), else a placeholder
    when a base URL is set (`base_url`, or the SDK's own `base_url_env` variable, which the SDK reads) and
    no env variable holds a key (local OpenAI-compatible servers need none)."""
    if isinstance(key, SecretStr):
        key = key.get_secret_value()
    if key:
        return key
    chosen = base_url or (os.environ.get(base_url_env) if base_url_env else None)
    if chosen and not any(os.environ.get(name) for name in env):
        return _PLACEHOLDER_KEY
    return None


def sdk_environment(
    base_url: str | None, api_key: str | SecretStr | None, env: tuple[str, ...], base_url_env: str
) -> str:
    """The SDK's own variables its client will read, as `OPENAI_BASE_URL, OPENAI_API_KEY` ('' for none):
    those set in the environment for what the settings leave empty."""
    names = [base_url_env] if not base_url and base_url_env and os.environ.get(base_url_env) else []
    if not (api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key):
        names += [name for name in env if os.environ.get(name)][:1]  # the first one set is the one used
    return ", ".join(names)


def log_environment(subject: str, vendor: str, read: str) -> None:
    """One INFO line naming the SDK's variables a client reads (`sdk_environment`), when it reads any; names
    only, so a key's value never reaches a log."""
    if read:
        logger.info("%s: the %s SDK reads %s from the environment", subject, vendor, read)


def retried(max_retries: int) -> str:
    """` (2 retries)`: what the SDK tried before giving up; empty without retries."""
    if not max_retries:
        return ""
    return " (1 retry)" if max_retries == 1 else f" ({max_retries} retries)"


def status_text(status: int, body: object, max_retries: int) -> str:
    """`HTTP 429 (2 retries): <the API's message>`; the SDKs retry 408, 409, 429 and 5xx."""
    retryable = status in (408, 409, 429) or status >= 500
    text = f"HTTP {status}" + (retried(max_retries) if retryable else "")
    message = _body_message(body)
    if status == 401:
        message = f"{message} (check the API key)" if message else "check the API key"
    return f"{text}: {message}" if message else text


def _body_message(body: object) -> str:
    if isinstance(body, Mapping):
        error = body.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return "" if body is None else str(body)


def broken_stream(error: Exception) -> str:
    """What went wrong in a stream that had begun: the vendor's error event, or the connection's end."""
    message = _body_message(getattr(error, "body", None))
    cause = error.__cause__ or error
    return f"the stream broke: {message or str(cause) or type(cause).__name__}"


def provider_error(
    vendor: str, model: str, base_url: str, what: str, *, secret: str | None
) -> LlmProviderError:
    """`openai model 'gpt-4o' at https://...: HTTP 401: ...` on one line, the API key never in it."""
    detail = " ".join(what.split())
    if secret and secret != _PLACEHOLDER_KEY:
        detail = detail.replace(secret, "***")
    if len(detail) > _MAX_DETAIL:
        detail = detail[: _MAX_DETAIL - 3] + "..."
    return LlmProviderError(f"{vendor} model '{model}' at {base_url.rstrip('/')}: {detail}")


def without_none(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Model parameters with the unset (None) ones left out."""
    return {key: value for key, value in (params or {}).items() if value is not None}
