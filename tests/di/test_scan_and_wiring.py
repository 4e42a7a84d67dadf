"""Component scan and constructor wiring by type, including every kind of wiring problem."""

from __future__ import annotations

import pytest

from mesh_framework import McpMeshToolProxyFactory, MeshApplication, WiringError
from mesh_framework.jobs.tools import JOB_TOOLS
from mesh_framework.testing import mesh_client
from tests.apps.wiring_ok.parts import CustomProxyFactory, EnglishGreeter, FrenchGreeter, MemoryStore, Shop


def load_ok(**kwargs: object) -> MeshApplication:
    return MeshApplication.load("tests.apps.wiring_ok", environ={}, **kwargs)  # type: ignore[arg-type]


def test_scan_finds_components_tools_and_sections_but_skips_excluded_modules() -> None:
    app = load_ok()
    assert "tests.apps.wiring_ok.ignored" not in app.scan.modules
    assert {c.cls for c in app.scan.components} == {
        MemoryStore,
        EnglishGreeter,
        FrenchGreeter,
        Shop,
        CustomProxyFactory,
    }
    assert {t.key for t in app.scan.tools} == {
        "tests.apps.wiring_ok.parts.Shop.price",
        "tests.apps.wiring_ok.parts.welcome",
    }


def test_constructor_wiring_by_type() -> None:
    app = load_ok()
    app.build()
    shop = app.container.shop()
    assert isinstance(shop.store, MemoryStore)  # the only implementation of a Protocol
    assert isinstance(shop.greeter, EnglishGreeter)  # primary among two
    assert isinstance(shop.french, FrenchGreeter)  # qualifier
    assert shop.pricing.currency == "EUR"  # typed config section
    assert shop.settings is app.settings  # framework bean
    assert shop.retries == 3  # default kept
    assert shop.tools is app.container.tools()  # the registry, filled by the build
    # its own two tools, beside the job tools every agent of a mesh serves
    assert sorted(w.name for w in shop.tools if w.name not in JOB_TOOLS) == ["price", "welcome"]
    assert shop is app.container.shop()  # singleton


def test_user_component_of_a_framework_type_replaces_the_framework_bean() -> None:
    app = load_ok()
    app.build()
    factory = app.container.proxy_factory()
    assert isinstance(factory, CustomProxyFactory)
    assert isinstance(factory, McpMeshToolProxyFactory)


def test_config_section_comes_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    app = MeshApplication.load("tests.apps.wiring_ok", environ={"MESH_SHOP__PRICING__CURRENCY": "CHF"})
    app.build()
    assert app.container.shop().pricing.currency == "CHF"


async def test_method_tools_and_bean_injection_into_tools() -> None:
    app = load_ok()
    async with mesh_client(app) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert list(tools["welcome"]["inputSchema"]["properties"]) == ["name"]  # the Shop bean is hidden
        assert tools["price"]["description"] == "Gross price of a net amount."
        result = await client.call_tool("welcome", {"name": "Ann"})
        assert result["content"][0]["text"] == "Hello Ann / Bonjour Ann / value-of-Ann"
        price = await client.call_tool("price", {"net": 10})
        assert price["structuredContent"] == {"gross": 12.0, "currency": "EUR"}


def test_every_wiring_problem_is_reported_together_with_locations() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.wiring_bad", environ={})
    problems = caught.value.problems
    text = "\n".join(problems)
    assert len(problems) == 5, text
    assert "tests/apps/wiring_bad/parts.py:" in text
    assert "parameter 'missing' of NeedsMissing: no component of type Missing" in text
    assert "parameter 'base' of NeedsAmbiguous: 2 components match type Base (ImplA, ImplB)" in text
    assert "dependency cycle CycleA(b) -> CycleB(a) -> CycleA" in text
    assert "HiddenHint.__init__ has an annotation that cannot be resolved at run time" in text
    assert "tool 'tests.apps.wiring_bad.parts.too_many': parameter 'b' is typed McpMeshTool" in text


def test_problem_locations_point_at_the_parameter_line() -> None:
    import inspect

    from tests.apps.wiring_bad import parts

    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.wiring_bad", environ={})
    missing = next(p for p in caught.value.problems if "NeedsMissing" in p)
    _lines, start = inspect.getsourcelines(parts.NeedsMissing.__init__)
    assert f"parts.py:{start + 2}:" in missing  # the line of `missing: Missing`, not of the `def`


def test_unknown_module_and_module_without_agent() -> None:
    with pytest.raises(WiringError, match="cannot import 'no_such_app_module'"):
        MeshApplication.load("no_such_app_module", environ={})
    with pytest.raises(WiringError, match="no @mesh_agent class in this module"):
        MeshApplication.load("tests.apps.wiring_ok.parts", environ={})


def test_a_function_is_located_at_its_first_decorator_line() -> None:
    """`describe_location` names a function by its first line (its first decorator), read without tokenizing
    the source; a parameter by its own line; code with no source by its name."""
    import functools
    import inspect

    from mesh_framework.di.wiring import describe_location
    from tests.apps.wiring_ok import parts

    function = parts.welcome
    path, start = inspect.getsourcefile(function), inspect.getsourcelines(function)[1]
    assert path is not None and describe_location(function).endswith(f"{path.rpartition('/')[2]}:{start}")
    assert describe_location(functools.wraps(function)(lambda: None)) == describe_location(function)
    parameter = next(iter(inspect.signature(function).parameters))
    assert int(describe_location(function, parameter).rpartition(":")[2]) >= start
    generated: dict[str, object] = {}
    exec("def made():\n    pass\n", generated)
    assert describe_location(generated["made"]) == "made"
