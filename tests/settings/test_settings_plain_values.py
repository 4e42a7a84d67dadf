"""Loading makes a section given plain values (text, numbers, booleans, lists of text) without building its
validator (`config/plain_values.py`); each value taken so is what validating it gives, and anything else is
left to pydantic, which reports problems as before."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mesh_framework.config import settings
from mesh_framework.config.loader import load_settings
from mesh_framework.config.plain_values import plain_section
from mesh_framework.config.settings import (
    AgentSettings,
    AuthSettings,
    JobSettings,
    LoggingSettings,
    McpSettings,
    MediaSettings,
    RegistrySettings,
    ServerSettings,
    ToolSettings,
    TracingSettings,
)
from mesh_framework.errors import ConfigError
from tests.agents import ROOT
from tests.settings.test_settings_sections import assert_same_model

pytestmark = pytest.mark.timeout(120)

MODELS = sorted(
    (
        model
        for name in settings.__all__
        if isinstance(model := getattr(settings, name), type) and issubclass(model, BaseModel)
    ),
    key=lambda model: model.__name__,
)

# Values of every kind a file, the environment or the command line gives, valid or not for some field.
VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 5, 8080, 70000, 2**53, 2**53 + 1, 2**60, 10**400, 0.0, 0.5, 1.5, -2.5, 30.0,
    float("nan"), float("inf"), "", " ", "x", "0", "1", "5", "8080", "045", "-1", "+5", " 5", "5_0", "1e3",
    "0.5", "30.0", "1.", ".5", "123456789012345678", "true", "false", "True", "yes", "/mcp", "mcp", "/a/",
    "/", "INFO", "debug", "verbose", "http://h:1", "http://h:0", "ftp://h", "https://h/doc", "a, b", "a b",
    "text", "json", "s3", "local", "otlp", "file", "console", "auto", "current", "never", "always",
    "client_secret_post", "x-tenant-*", "media/", "../up", [], ["a"], ["a", "b"], ["http://h:1"], ["a", 1],
    ("a",), {}, {"a": 1}, {"port": 1}, {"max_count": 5}, {"max_count": -5}, {"allow_origins": ["*"]},
]  # fmt: skip


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_each_value_taken_plainly_is_what_validating_it_gives(model: type[BaseModel]) -> None:
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True, validated_data={})
        for value in [*VALUES, default]:
            made = plain_section(model, {name: value})
            if made is None:
                continue
            try:
                validated = model.model_validate({name: value})
            except ValidationError as exc:  # pragma: no cover - the failure this test exists for
                pytest.fail(f"{model.__name__}.{name} = {value!r} was taken plainly but is invalid: {exc}")
            assert_same_model(made, validated)


def test_plain_values_of_most_fields_need_no_validator() -> None:
    """The fast path is taken where it should be (else this cut would silently vanish)."""
    taken = {
        (model.__name__, name)
        for model in MODELS
        for name, info in model.model_fields.items()
        if any(plain_section(model, {name: value}) is not None for value in VALUES)
    }
    assert len(taken) > 100
    assert {("ServerSettings", "port"), ("ToolSettings", "timeout"), ("McpSettings", "catalog")} <= taken
    agent = {"name": "starter", "version": "0.1.0", "description": "Greets people"}
    starter = [
        (ServerSettings, {"port": 0, "host": "127.0.0.1", "path": "/mcp"}),
        (ToolSettings, {"timeout": 30}),
        (LoggingSettings, {"level": "info"}),
        (McpSettings, {"catalog": "mcp-servers.json"}),
        (AgentSettings, agent),
        (RegistrySettings, {"embedded_port": "18000", "urls": "http://a:1, http://b:2"}),
        (JobSettings, {"retention": {"max_count": 5}, "timeout": "2.5"}),
    ]
    for model, data in starter:
        made = plain_section(model, data)
        assert made is not None, (model, data)
        assert_same_model(made, model.model_validate(data))


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (ServerSettings, {"port": 70000}),  # out of range
        (ServerSettings, {"path": "mcp"}),  # its validator refuses it
        (ServerSettings, {"prot": 1}),  # a key nothing reads
        (ServerSettings, {"request_state_key": "k"}),  # a secret
        (ServerSettings, {"port": " 5"}),  # text pydantic parses its own way
        (JobSettings, {"tools": {"t": 1}}),  # a mapping
        (JobSettings, {"retention": {"max_count": -1}}),  # a nested section with a bad value
        (TracingSettings, {"enabled": True}),  # a validator reading the other fields
        (MediaSettings, {"storage": "local"}),
        (AuthSettings, {"issuer": "x"}),  # a model validator
    ],
)
def test_anything_else_is_left_to_pydantic(model: type[BaseModel], data: dict[str, Any]) -> None:
    assert plain_section(model, data) is None


def test_a_bad_value_is_reported_as_pydantic_words_it(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "server:\n  path: mcp\n  port: 70000\nlogging:\n  level: verbose\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={})
    where = f"(from {tmp_path / 'application.yaml'}"
    assert caught.value.problems == [
        f"server.port = 70000 {where}:3): Input should be less than or equal to 65535",
        f"server.path = 'mcp' {where}:2): must start with '/' and not end with '/', e.g. '/mcp'",
        f"logging.level = 'verbose' {where}:5): must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL",
    ]


def test_loading_plain_values_builds_no_validator() -> None:
    """Start-up cost: a section given plain values (the starter's) builds no validator; one given a mapping
    builds its own."""
    script = """
import inspect
import json
from mesh_framework.config import settings
from mesh_framework.config.loader import load_settings
environ = {"MESH_TOOLS__TIMEOUT": "5", "MESH_REGISTRY__EMBEDDED_PORT": "18000"}
environ["MESH_LOGGING__LEVEL"] = "debug"
cli = {"server.port": 0, "server.host": "127.0.0.1", "mcp.catalog": "servers.json", "jobs.tools": {"t": 2}}
loaded = load_settings(cli=cli, code={"agent.name": "calc"}, environ=environ)
assert loaded.settings.server.port == 0 and loaded.settings.tools.timeout == 5.0
assert loaded.settings.mcp.catalog == ["servers.json"] and loaded.settings.logging.level == "DEBUG"
print(json.dumps(sorted(
    name for name in settings.__all__ if getattr(getattr(settings, name), "__pydantic_complete__", False)
)))
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["JobSettings"]


def test_the_arguments_of_each_validator_are_those_its_signature_names() -> None:
    from mesh_framework.config.plain_values import _arguments

    validators = [
        validator.func
        for model in MODELS
        for validator in model.__pydantic_decorators__.field_validators.values()
    ]
    assert len(validators) > 20
    for function in validators:
        assert _arguments(function) == len(inspect.signature(function).parameters), function
    assert _arguments(len) is None  # not a class method: pydantic decides
