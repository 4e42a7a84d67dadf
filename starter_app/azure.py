"""`ask`'s OpenAI client on Azure OpenAI, with `--profile azure` (clients.py imports this module then; the
scan leaves it out, as it imports the openai SDK, which the agent otherwise loads at its first model call).

The bean is the application's own `openai.AsyncOpenAI` (Azure's client is one), so the framework makes none
from `llm.vendors.openai`: `ask`'s model talks through this one, and the agent closes it when it stops.
"""

from __future__ import annotations

from openai import AsyncAzureOpenAI

from mesh_framework import bean, configuration

from .clients import AzureProperties


@configuration
class AzureClient:
    @bean(lazy=True)  # made on the first call of `ask`: the agent starts without the settings
    def azure_openai(self, azure: AzureProperties) -> AsyncAzureOpenAI:
        """The deployment is the model's name; the key and endpoint come from the `azure:` section."""
        return AsyncAzureOpenAI(
            azure_endpoint=azure.endpoint,
            api_key=azure.api_key.get_secret_value() if azure.api_key else None,
            api_version=azure.api_version,
        )
