"""Finding the web routes a scanned module declares reads the marks only, whatever else the module holds."""

from __future__ import annotations

import sys
import types

import pytest
from pydantic import BaseModel, ConfigDict

from mesh_framework.routes.route_marks import declares_routes, mesh_route

pytestmark = pytest.mark.timeout(30)


def test_a_deferred_pydantic_model_in_a_scanned_module_is_left_unbuilt() -> None:
    """Its validator stands in until first used: reading it built the model's schema (start-up time) and
    changed the class while its members were read (RuntimeError: dictionary changed size)."""

    class Deferred(BaseModel):
        model_config = ConfigDict(defer_build=True)
        name: str = "x"

    class Handlers:
        @mesh_route("/hello")
        def hello(self) -> str:
            return "hi"

    module = types.ModuleType("scanned_with_a_deferred_model")
    module.Deferred = Deferred  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        assert declares_routes([module.__name__]) is None
        assert not Deferred.__pydantic_complete__
        module.Handlers = Handlers  # type: ignore[attr-defined]
        found = declares_routes([module.__name__])
        assert found is not None and found.endswith("Handlers has a @mesh_route method")
    finally:
        del sys.modules[module.__name__]
