from __future__ import annotations

from typing import Annotated, Protocol

from pydantic import BaseModel

from mesh_framework import (
    McpMeshToolProxyFactory,
    MeshSettings,
    MeshToolWrapperRegistry,
    Qualifier,
    component,
    config_properties,
    mesh_tool,
)


@config_properties("shop.pricing")
class Pricing(BaseModel):
    currency: str = "EUR"
    vat: float = 0.2


class Store(Protocol):
    def get(self, key: str) -> str: ...


@component
class MemoryStore:
    def get(self, key: str) -> str:
        return f"value-of-{key}"


class Greeter:
    def greet(self, name: str) -> str:
        raise NotImplementedError


@component(qualifier="english", primary=True)
class EnglishGreeter(Greeter):
    def greet(self, name: str) -> str:
        return f"Hello {name}"


@component(qualifier="french")
class FrenchGreeter(Greeter):
    def greet(self, name: str) -> str:
        return f"Bonjour {name}"


@component
class Shop:
    def __init__(
        self,
        store: Store,
        pricing: Pricing,
        greeter: Greeter,
        french: Annotated[Greeter, Qualifier("french")],
        settings: MeshSettings,
        tools: MeshToolWrapperRegistry,
        retries: int = 3,
    ) -> None:
        self.store = store
        self.pricing = pricing
        self.greeter = greeter
        self.french = french
        self.settings = settings
        self.tools = tools
        self.retries = retries

    @mesh_tool(capability="price")
    def price(self, net: float) -> dict[str, float | str]:
        """Gross price of a net amount."""
        return {"gross": round(net * (1 + self.pricing.vat), 2), "currency": self.pricing.currency}


@component
class CustomProxyFactory(McpMeshToolProxyFactory):
    """Replaces the framework's proxy factory because it is a subclass of its type."""


@mesh_tool()
def welcome(name: str, shop: Shop) -> str:
    """Module-level tool with a component injected by type."""
    return f"{shop.greeter.greet(name)} / {shop.french.greet(name)} / {shop.store.get(name)}"
