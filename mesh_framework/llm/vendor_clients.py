"""The vendor SDK clients the models of `"vendor/model"` providers use, as beans of the container.

An application may declare its own bean of a vendor's client type (`openai.AsyncOpenAI`, or a subclass such
as `openai.AsyncAzureOpenAI`; `anthropic.AsyncAnthropic`): its models then talk through it. Otherwise the LLM
auto-configuration's `VendorClient` bean of the vendor (`openai_client`, `anthropic_client`) makes one from
`llm.vendors.<vendor>` on first use. That bean is not typed as the SDK's class, so that start-up imports no
SDK (they load on the first call); an application that names the SDK's class has imported it already,
which is why a missing-bean condition on the class's dotted name is enough. The container closes either
client at stop; the models only borrow it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

from ..config.settings import LlmVendorSettings
from ..di.wiring import Bean, BeanCatalog, is_assignable
from ..extension import BeanLookup, LoadPlan, ScannedApp
from ..failures import exception_text
from .model import LlmError
from .vendors import CLIENT_TYPES, KNOWN_VENDORS

__all__ = ["VendorClient", "VendorClients", "client_class"]


def client_class(vendor: str) -> type | None:
    """The vendor SDK's client class, when the SDK is imported already (None otherwise: no bean can be
    of it)."""
    module_name, _, name = CLIENT_TYPES[vendor].rpartition(".")
    found = getattr(sys.modules.get(module_name), name, None)
    return found if isinstance(found, type) else None


class VendorClient:
    """One vendor's SDK client as the agent makes it: from `llm.vendors.<vendor>` (the SDK reads its own
    `<VENDOR>_BASE_URL` and key variables for what those leave empty, logged by name) on the first
    `client()`, so an agent starts without an API key; `aclose()` closes it (the container, at stop)."""

    def __init__(self, vendor: str, settings: LlmVendorSettings) -> None:
        self.vendor = vendor
        self.settings = settings
        self._client: Any = None

    def client(self) -> Any:
        """The SDK client, made now if it was not yet; LlmError saying where to set a key it lacks."""
        if self._client is None:
            from .vendors._common import log_environment, sdk_environment

            module = importlib.import_module(f"{__package__}.vendors.{self.vendor}")
            adapter = getattr(module, KNOWN_VENDORS[self.vendor])
            settings = self.settings
            read = sdk_environment(settings.base_url, settings.api_key, adapter.key_env, adapter.base_url_env)
            self._client = module.new_client(
                settings.base_url, settings.api_key, settings.timeout, settings.max_retries
            )
            log_environment(f"llm.vendors.{self.vendor}", self.vendor, read)
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def __repr__(self) -> str:
        state = "made" if self._client is not None else "not made yet"
        return f"VendorClient({self.vendor!r}, {state})"


class VendorClients(LoadPlan):
    """`client(vendor)`: the SDK client the vendor's models use, by type as Spring's `getBean(Class)`: the
    application's bean of the SDK's client class, else the auto-configuration's `VendorClient`; None when
    there is neither (the SDK is not installed). Two application beans of one client class, neither
    primary, are a start-up problem."""

    def __init__(self, app: ScannedApp, lookup: BeanLookup, defaults: Sequence[VendorClient]) -> None:
        self._catalog: BeanCatalog = app.catalog
        self._lookup = lookup
        self._defaults = {default.vendor: default for default in defaults}
        problems: list[str] = []
        for vendor in CLIENT_TYPES:
            resolved = self._resolve(vendor)
            if isinstance(resolved, str):
                problems.append(f"the client of the {vendor} models ({CLIENT_TYPES[vendor]}): {resolved}")
        self.problems = problems

    def client(self, vendor: str) -> Any:
        """The client, made now if it was not yet; LlmError when it cannot be made (no API key), saying
        why."""
        resolved = self._resolve(vendor)
        if isinstance(resolved, str):
            raise LlmError(resolved)
        if resolved is None:
            default = self._defaults.get(vendor)
            return default.client() if default is not None else None
        try:
            return self._lookup(resolved.name)
        except LlmError:
            raise
        except Exception as exc:  # an application's bean that cannot be made: its error, on one line
            raise LlmError(
                f"bean '{resolved.name}' ({CLIENT_TYPES[vendor]}) cannot be made: "
                f"{' '.join(exception_text(exc).split())}"
            ) from None

    def _resolve(self, vendor: str) -> Bean | str | None:
        """The application's bean of the vendor's client class, None without one, or why it is ambiguous."""
        cls = client_class(vendor)
        if cls is None or not any(is_assignable(b.type, cls) for b in self._catalog.components):
            return None
        return self._catalog.resolve(cls)
