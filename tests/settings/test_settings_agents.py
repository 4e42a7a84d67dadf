"""Several agents in one project: `agents.<name>` sections of the shared files, per agent."""

from __future__ import annotations

from pathlib import Path

from mesh_framework.config.loader import load_settings


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)


def test_an_agent_section_sits_just_above_its_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        "application.yaml",
        "server:\n  port: 8080\nagents:\n  billing-agent:\n    server:\n      port: 8081\n"
        "  other:\n    server:\n      port: 9999\n",
    )
    write(tmp_path, "application-dev.yaml", "agents:\n  billing-agent:\n    logging:\n      level: DEBUG\n")
    billing = load_settings(code={"agent.name": "billing-agent"}, config_dir=tmp_path, environ={})
    assert billing.settings.server.port == 8081
    assert billing.origin_of("server.port").endswith("application.yaml:6")  # its line in the file
    plain = load_settings(code={"agent.name": "front"}, config_dir=tmp_path, environ={})
    assert plain.settings.server.port == 8080 and "agents" not in (plain.settings.model_extra or {})
    dev = load_settings(
        code={"agent.name": "billing-agent"}, profiles=["dev"], config_dir=tmp_path, environ={}
    )
    assert dev.settings.logging.level == "DEBUG" and dev.settings.server.port == 8081
    env = load_settings(
        code={"agent.name": "billing-agent"}, config_dir=tmp_path, environ={"MESH_SERVER__PORT": "7000"}
    )
    assert env.settings.server.port == 7000  # the environment still beats the files
    renamed = load_settings(
        code={"agent.name": "x"}, config_dir=tmp_path, environ={"MCP_MESH_AGENT_NAME": "billing-agent"}
    )
    assert renamed.settings.server.port == 8081


def test_the_starter_agents_get_their_own_ports() -> None:
    from mesh_framework import MeshApplication

    assert MeshApplication.load("starter_app", environ={}).settings.server.port == 8080
    assert MeshApplication.load("starter_app.calculator", environ={}).settings.server.port == 8081
