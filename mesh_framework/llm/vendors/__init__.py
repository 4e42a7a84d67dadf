"""Vendor adapters: `LlmModel`s over the vendors' official SDKs, chosen by a `"vendor/model"` spec.

    model = create_model("openai/gpt-4o-mini")
    model = create_model("anthropic/claude-sonnet-4-5", settings.llm.vendor("anthropic"))
    local = create_model("openai/llama3.2", LlmVendorSettings(base_url="http://localhost:11434/v1"))

Each vendor's SDK is an optional extra (`pip install 'mesh-framework[openai]'`); this package imports it
only when a model of that vendor is created.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from ...config.settings import LlmVendorSettings
from ..model import LlmError, LlmModel

__all__ = ["CLIENT_TYPES", "KNOWN_VENDORS", "ClientOf", "create_model"]

ClientOf = Callable[[str], Any]
"""The SDK client a vendor's models use (the agent's bean), or None when the agent has none."""

KNOWN_VENDORS: Mapping[str, str] = {"anthropic": "AnthropicModel", "openai": "OpenAIChatModel"}
"""Vendor prefix -> adapter class (in `mesh_framework.llm.vendors.<vendor>`); the extra and the SDK
module have the vendor's name."""

CLIENT_TYPES: Mapping[str, str] = {"anthropic": "anthropic.AsyncAnthropic", "openai": "openai.AsyncOpenAI"}
"""Vendor prefix -> the dotted name of its SDK's async client class (named, so that naming it imports
nothing): an agent's bean of that type is the client its models use."""


def create_model(
    spec: str, settings: LlmVendorSettings | None = None, *, client: ClientOf | None = None
) -> LlmModel:
    """The model a `"vendor/model"` spec names (`openai/gpt-4o-mini`); the model is what follows the first
    `/`, so `openai/meta-llama/Llama-3.1-8B` on a vLLM `base_url` is fine.

    `client(vendor)` gives the SDK client the model uses (the agent's bean, llm/vendor_clients.py), or
    None: the model then makes its own from `settings` and closes it with itself."""
    vendor, _, model = spec.partition("/")
    known = ", ".join(sorted(KNOWN_VENDORS))
    if not vendor or not model:
        raise LlmError(
            f"LLM provider '{spec}' is not 'vendor/model' (e.g. 'openai/gpt-4o-mini'). Vendors: {known}."
        )
    if vendor not in KNOWN_VENDORS:
        raise LlmError(f"Unknown LLM vendor '{vendor}' in '{spec}'. Known vendors: {known}.")
    try:
        importlib.import_module(vendor)
    except ImportError:
        raise LlmError(
            f"LLM provider '{spec}' needs the {vendor} SDK: pip install 'mesh-framework[{vendor}]'"
        ) from None
    adapter = getattr(importlib.import_module(f"{__name__}.{vendor}"), KNOWN_VENDORS[vendor])
    try:
        given = client(vendor) if client is not None else None
    except LlmError as error:  # the agent's client cannot be made (no API key): said for this model
        raise LlmError(f"{spec}: {error}") from None
    if given is not None:
        return adapter(model, client=given)  # type: ignore[no-any-return]
    created: LlmModel = adapter.from_settings(model, settings)
    return created
