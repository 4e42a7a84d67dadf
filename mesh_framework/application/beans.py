"""An agent's beans by type, after loading: one replaced while a block runs (tests), a typed section read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from ..di.assembly import bean_name_for
from ..di.wiring import BeanCatalog

__all__ = ["overriding", "section_of"]


@contextlib.contextmanager
def overriding(container: Any, catalog: BeanCatalog, target: type | str, value: Any) -> Iterator[None]:
    """Replace a component or framework bean (by type or provider name) while the block runs; singletons
    are reset before and after, so every bean built in the block sees the replacement."""
    name = target if isinstance(target, str) else bean_name_for(catalog, target)
    container.reset_singletons()
    try:
        with getattr(container, name).override(value):
            yield
    finally:
        container.reset_singletons()


def section_of(container: Any, catalog: BeanCatalog, model: type[BaseModel]) -> BaseModel:
    """The validated `@config_properties` section of type `model`."""
    return container.providers[catalog.config[model].name]()  # type: ignore[no-any-return]
