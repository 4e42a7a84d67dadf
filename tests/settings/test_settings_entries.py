"""The models of list and mapping entries (`config/entries.py`: a static token, an OAuth client, an A2A
peer, ...) are created when a setting holds one, not at start-up; every way of reaching them works in a
fresh interpreter as it did when `config/settings.py` created them: validating, the names, masking,
typo suggestions, the reference."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.agents import ROOT

pytestmark = pytest.mark.timeout(120)

NOT_LOADED = "import sys\nassert 'mesh_framework.config.entries' not in sys.modules\n"

SCRIPTS = {
    "a section validated alone": """
from mesh_framework.config.settings import AuthSettings
auth = AuthSettings(tokens=[{"token": "t0ken", "scopes": ["a"]}], dependency_clients={"x": {
    "token_url": "https://as/token", "client_id": "c", "client_secret": "s"}})
print(json.dumps([type(auth.tokens[0]).__name__, auth.dependency_clients["x"].client_id]))
""",
    "the whole tree": """
from mesh_framework.config.settings import MeshSettings
settings = MeshSettings(a2a={"peers": {"p": {"url": "http://p:1"}}}, web={"static": [{"directory": "s"}]},
                        commands={"tools": {"t": {"timeout": 5}}})
print(json.dumps([settings.a2a.peers["p"].url, settings.web.static[0].path,
                  settings.commands.tools["t"].timeout]))
""",
    "loading files": """
import pathlib, tempfile
from mesh_framework.config.loader import load_settings
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "application.yaml").write_text(
    "mcp:\\n  openapi:\\n    - {name: pets, spec: pets.json, auth: {bearer: b}}\\n"
    "  oauth_clients:\\n    s: {client_id: c}\\n"
)
settings = load_settings(config_dir=folder, environ={}).settings
print(json.dumps([settings.mcp.openapi[0].auth.bearer.get_secret_value(),
                  settings.mcp.login_client("s").client_id, settings.mcp.login_client("other").client_id]))
""",
    "a model of the application holding a section": """
from pydantic import BaseModel, TypeAdapter
from mesh_framework.config.settings import AuthSettings
class Mine(BaseModel):
    auth: AuthSettings
mine = Mine.model_validate({"auth": {"tokens": [{"token": "t"}]}})
adapted = TypeAdapter(AuthSettings).validate_python({"tokens": [{"token": "u"}]})
print(json.dumps([mine.auth.tokens[0].client_id, adapted.tokens[0].token.get_secret_value()]))
""",
    "the names": """
from mesh_framework.config import settings
from mesh_framework.config.settings import *  # noqa: F403
names = sorted(name for name in settings.__all__ if isinstance(getattr(settings, name), type))
print(json.dumps([len(names), StaticToken.__name__, settings.WebStaticMount.__name__]))
""",
    "masking and typos": """
from mesh_framework.config.masking import is_secret, holds_secret
from mesh_framework.config.settings import MeshSettings
from mesh_framework.config.fields import model_at
print(json.dumps([is_secret("auth.tokens.0.token", MeshSettings),
                  is_secret("a2a.peers.p.token", MeshSettings),
                  is_secret("auth.tokens.0.scopes", MeshSettings), holds_secret("auth.tokens", MeshSettings),
                  model_at(MeshSettings, ["mcp", "openapi", "0", "auth"]).__name__]))
""",
}

EXPECTED = {
    "a section validated alone": ["StaticToken", "c"],
    "the whole tree": ["http://p:1", "/", 5.0],
    "loading files": ["b", "c", None],
    "a model of the application holding a section": ["static", "u"],
    "the names": [37, "StaticToken", "WebStaticMount"],
    "masking and typos": [True, True, False, True, "OpenApiAuthSettings"],
}


def _run(script: str) -> object:
    code = "import json\n" + NOT_LOADED + script
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_entries_work_in_a_fresh_interpreter(name: str) -> None:
    assert _run(SCRIPTS[name]) == EXPECTED[name]


def test_a_typo_in_an_entry_is_reported_with_the_closest_name(tmp_path: object) -> None:
    script = """
import pathlib, tempfile
from mesh_framework.config.loader import load_settings
from mesh_framework.errors import ConfigError
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "application.yaml").write_text("auth:\\n  tokens:\\n    - {tokn: s3cr3t}\\n")
try:
    load_settings(config_dir=folder, environ={})
except ConfigError as exc:
    print(json.dumps([problem.replace(str(folder), "F") for problem in exc.problems]))
"""
    assert _run(script) == [
        "auth.tokens.0.token (from F/application.yaml:3): Field required",
        "auth.tokens.0.tokn (from F/application.yaml:3): 'auth.tokens.0' has no setting 'tokn'; did you mean "
        "'token'?",
    ]


def test_an_agent_that_holds_no_entry_creates_none() -> None:
    """Start-up cost: loading settings without entries (a section validated by pydantic among them) leaves
    `config/entries.py` unimported (validating a section whose fields hold entries, `auth`, needs them)."""
    script = """
from mesh_framework.config.loader import load_settings
loaded = load_settings(cli={"server.port": 0}, environ={"MESH_JOBS__TOOLS": '{"t": 2}'})
loaded.settings.mcp.login_client  # a method, not called
import sys
print(json.dumps(["mesh_framework.config.entries" in sys.modules, loaded.settings.jobs.tools]))
"""
    assert _run(script) == [False, {"t": 2}]


def test_entries_are_declared_as_the_sections_are() -> None:
    from mesh_framework.config import entries, settings

    assert entries._Section == settings._Section


def test_every_entry_model_is_a_name_of_the_settings_module() -> None:
    from mesh_framework.config import entries, settings

    models = {name for name in entries.__all__ if isinstance(getattr(entries, name), type)}
    assert len(models) == 8
    assert models <= set(settings.__all__)
    assert all(getattr(settings, name) is getattr(entries, name) for name in models)
    with pytest.raises(AttributeError, match="no attribute 'NotAModel'"):
        _ = settings.NotAModel  # type: ignore[attr-defined]
