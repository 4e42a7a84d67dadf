"""docs/configuration.md is the reference generated from MeshSettings, and it is current."""

from __future__ import annotations

from mesh_framework.config.reference import reference_rows, settings_reference

from ..agents import ROOT


def test_the_reference_page_is_current() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert page == settings_reference(), (
        "run: python -m mesh_framework.config.reference > docs/configuration.md"
    )


def test_every_setting_is_described_with_its_environment_names() -> None:
    rows = {key: (type_name, default, env, text) for key, type_name, default, env, text in reference_rows()}
    assert rows["server.port"][1:3] == ("8080", "MESH_SERVER__PORT, MCP_MESH_HTTP_PORT")
    assert rows["profiles"][2] == "MESH_PROFILES_ACTIVE"
    assert (
        rows["llm.defaults.max_iterations"][2]
        == "MESH_LLM__DEFAULTS__MAX_ITERATIONS, MESH_LLM_MAX_ITERATIONS"
    )
    assert [key for key, (_t, _d, _e, text) in rows.items() if not text] == []
