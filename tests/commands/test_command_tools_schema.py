"""Click commands as tools, at start-up: names from the command path, schemas from the options, problems
reported together. No command runs here."""

from __future__ import annotations

from typing import Any

import click
import pytest

from mesh_framework import MeshApplication, WiringError, mcp_command
from mesh_framework.command_tools.naming import tool_name
from mesh_framework.command_tools.schema import analyze_command
from mesh_framework.command_tools.tool import CommandTool


@pytest.fixture(scope="module")
def app() -> MeshApplication:
    return MeshApplication.load("tests.apps.click_app", environ={})


def tools(app: MeshApplication) -> dict[str, Any]:
    return {w.name: w for w in app.container.tools()}


def test_names_come_from_the_command_path(app: MeshApplication) -> None:
    names = set(tools(app))
    assert {
        "status",
        "cassandra_update_config",
        "cassandra_stress_start",
        "read_stdin",
        "count_lines",
    } <= names
    assert {"disk_usage", "say_hello"} <= names  # @mcp_command: path below its group; or its own name
    assert "internal" not in names  # hidden
    assert "not_a_tool" not in names  # not marked, not exposed
    assert not {"cassandra", "cassandra_stress", "cli", "admin"} & names  # groups are not tools


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (("status",), "status"),
        (("cassandra", "stress", "start"), "cassandra_stress_start"),
        (("cassandra", "update-config"), "cassandra_update_config"),
    ],
)
def test_tool_name(path: tuple[str, ...], name: str) -> None:
    assert tool_name(path) == name


def test_schema_of_every_option_kind(app: MeshApplication) -> None:
    tool = tools(app)["cassandra_stress_start"]
    assert isinstance(tool, CommandTool)
    schema = tool.descriptor["inputSchema"]
    props = schema["properties"]
    assert props["threads"] == {"type": "integer", "description": "Client threads", "default": 4}
    assert props["rate"] == {"type": "number", "description": "Operations per second"}
    assert props["duration"]["minimum"] == 1 and props["duration"]["maximum"] == 3600
    assert props["profile"]["enum"] == ["read", "write", "mixed"] and props["profile"]["default"] == "mixed"
    assert props["hosts"] == {"type": "array", "items": {"type": "string"}, "description": "Hosts to load"}
    assert props["dry_run"] == {"type": "boolean", "description": "Print the plan only", "default": False}
    assert props["verbose"]["type"] == "integer" and props["verbose"]["minimum"] == 0
    assert props["tls"] == {"type": "boolean", "description": "Encrypt connections", "default": True}
    assert props["config_file"] == {"type": "string", "description": "Stress profile file"}
    assert props["point"]["type"] == "array" and props["point"]["minItems"] == 2
    assert props["keyspace"] == {"type": "string"}
    assert props["tables"] == {"type": "array", "items": {"type": "string"}}
    assert schema["required"] == ["keyspace"]
    assert schema["additionalProperties"] is False
    assert tool.descriptor["description"] == "Start a stress run.\n\nRuns until the duration is over."


def test_required_option_and_mark_description(app: MeshApplication) -> None:
    update = tools(app)["cassandra_update_config"].descriptor
    assert update["inputSchema"]["required"] == ["heap"]
    disk = tools(app)["disk_usage"].descriptor
    assert disk["description"] == "Disk usage of a path"
    assert disk["inputSchema"]["required"] == ["path"]


def test_background_and_timeout_from_settings_and_marks(app: MeshApplication) -> None:
    by_name = tools(app)
    assert by_name["status"].plan.background is True  # commands.background (default)
    assert by_name["status"].plan.timeout == 4  # commands.timeout from application.yaml
    assert by_name["disk_usage"].plan.background is False  # @mcp_command(background=False)
    assert "command" in by_name["status"].spec.tags


def test_arguments_go_back_on_the_command_line(app: MeshApplication) -> None:
    tool = tools(app)["cassandra_stress_start"]
    argv = tool.argv(
        {
            "keyspace": "ks",
            "tables": ["a", "-b"],
            "hosts": ["h1", "h2"],
            "dry_run": True,
            "verbose": 2,
            "tls": False,
            "point": [1.5, 2],
            "profile": "read",
        }
    )
    assert argv == [
        "cassandra", "stress", "start",
        "--profile", "read", "--host", "h1", "--host", "h2", "--dry-run", "--verbose", "--verbose",
        "--no-tls", "--point", "1.5", "2.0",
        "--", "ks", "a", "-b",
    ]  # fmt: skip
    assert tool.argv({"keyspace": "ks"}) == ["cassandra", "stress", "start", "--", "ks"]  # click's defaults


def test_bad_arguments_are_refused_before_running(app: MeshApplication) -> None:
    from pydantic import ValidationError

    tool = tools(app)["cassandra_stress_start"]
    for bad in (
        {"profile": "x", "keyspace": "k"},
        {"keyspace": "k", "duration": 0},
        {"keyspace": "k", "nope": 1},
    ):
        with pytest.raises(ValidationError):
            tool.argv(bad)


def test_every_problem_stops_start_up_together() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.click_bad", environ={})
    text = str(caught.value)
    assert (
        "tool name 'stress_start' is used by both command 'ops stress-start' (tests.apps.click_bad:ops, "
        "commands.expose[0]) and command 'ops stress start'"
    ) in text
    assert (
        "tool name 'greet' is used by both tool 'tests.apps.click_bad.greet_tool' and command 'ops greet'"
        in text
    )
    assert "commands.expose[1] = 'tests.apps.click_bad:missing'" in text
    assert "application.yaml" in text
    assert "no attribute 'missing'" in text
    assert "cannot import 'no_such_module_xyz'" in text
    assert "status section 'cluster' is already served by tests.apps.click_bad.cluster_a" in text
    assert "@status_section('nodes') must take no arguments" in text


def test_a_single_command_is_named_by_itself() -> None:
    @click.command("rotate-keys")
    @click.option("--dry-run/--apply", default=True)
    def rotate(dry_run: bool) -> None: ...

    schema, description = analyze_command(rotate, "m")
    assert schema.argv({"dry_run": False}) == ["--apply"]
    assert description == ""
    assert tool_name((rotate.name or "",)) == "rotate_keys"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"name": "bad name"}, "is invalid"), ({"timeout": 0}, "must be positive")],
)
def test_mcp_command_refuses_bad_parameters(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mcp_command(**kwargs)


def test_a_flag_that_cannot_be_turned_off_says_so() -> None:
    @click.command()
    @click.option("--color", is_flag=True, default=True)
    def paint(color: bool) -> None: ...

    schema, _ = analyze_command(paint, "m")
    assert schema.argv({"color": True}) == ["--color"]
    with pytest.raises(ValueError, match="no option to turn --color off"):
        schema.argv({"color": False})


def test_a_marked_command_inside_an_exposed_group_is_one_tool() -> None:
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.click_app.marked:admin"]
    app = MeshApplication.load("tests.apps.click_app", environ={}, cli={"commands.expose": exposed})
    by_name = tools(app)
    assert [name for name in by_name if name == "disk_usage"] == ["disk_usage"]
    assert by_name["disk_usage"].plan.background is False  # the mark still applies
    assert "not_a_tool" in by_name  # exposed with its group


def test_settings_of_one_command_tool_come_above_its_mark() -> None:
    environ = {
        "MESH_COMMANDS__TOOLS__DISK_USAGE__BACKGROUND": "true",
        "MESH_COMMANDS__TOOLS__DISK_USAGE__TIMEOUT": "9",
        "MESH_COMMANDS__TOOLS__STATUS__BACKGROUND": "false",
    }
    by_name = tools(MeshApplication.load("tests.apps.click_app", environ=environ))
    assert (by_name["disk_usage"].plan.background, by_name["disk_usage"].plan.timeout) == (True, 9)
    assert by_name["disk_usage"].job_hook is not None or by_name["disk_usage"].spec.background
    assert by_name["status"].plan.background is False
    assert by_name["count_lines"].plan.background is True


def test_settings_of_an_unknown_command_tool_stop_start_up() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.click_app", environ={"MESH_COMMANDS__TOOLS__STAUTS__TIMEOUT": "5"})
    (problem,) = caught.value.problems
    assert problem.startswith(
        "commands.tools.stauts (from environment variable MESH_COMMANDS__TOOLS__STAUTS__TIMEOUT)"
    )
    assert "no command tool is named 'stauts' (command tools: ask, cassandra_stress_start," in problem


def test_a_package_exposes_its_outermost_commands_by_name() -> None:
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.click_pkg"]
    by_name = tools(
        MeshApplication.load("tests.apps.click_app", environ={}, cli={"commands.expose": exposed})
    )
    assert {"health", "kafka_topics_create_topic", "kafka_restart"} <= set(by_name)
    assert "topics_create_topic" not in by_name
    plan = by_name["kafka_topics_create_topic"].plan
    assert (plan.reference, plan.path) == ("tests.apps.click_pkg.kafka:kafka", ("topics", "create-topic"))


def test_a_module_without_commands_is_a_problem() -> None:
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.wiring_ok.parts"]
    with pytest.raises(
        WiringError, match="no click command or group is defined in 'tests.apps.wiring_ok.parts'"
    ):
        MeshApplication.load("tests.apps.click_app", environ={}, cli={"commands.expose": exposed})
