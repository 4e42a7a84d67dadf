"""Vendor adapters: `LlmModel`s over the vendors' official SDKs, chosen by a `"vendor/model"` spec.

    model = create_model("openai/gpt-4o-mini")
    model = create_model("anthropic/claude-sonnet-4-5", settings.llm.vendor("anthropic"))
    local = create_model("openai/llama3.2", LlmVendorSettings(base_url="http://localhost:11434/v1"))

Each vendor's SDK is an optional extra (`pip install 'mesh-framework[openai]'`); this package imports it
only when a model of that vendor is created.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from ...config.settings import LlmVendorSettings
from ..model import LlmError, LlmModel

__all__ = ["KNOWN_VENDORS", "create_model"]

KNOWN_VENDORS: Mapping[str, str] = {"anthropic": "AnthropicModel", "openai": "OpenAIChatModel"}
"""Vendor prefix -> adapter class (in `mesh_framework.llm.vendors.<vendor>`); the extra and the SDK
module have the vendor's name."""


def create_model(spec: str, settings: LlmVendorSettings | None = None) -> LlmModel:
    """The model a `"vendor/model"` spec names (`openai/gpt-4o-mini`); the model is what follows the first
    `/`, so `openai/meta-llama/Llama-3.1-8B` on a vLLM `base_url` is fine."""
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
    created: LlmModel = adapter.from_settings(model, settings)
    return created
