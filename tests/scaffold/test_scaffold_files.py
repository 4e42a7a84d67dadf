"""`create_project` and `mesh new`: the files of each option, refusing to overwrite, exit codes."""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from mesh_framework.scaffold import ExistingFilesError, ScaffoldError, create_project
from mesh_framework.scaffold import command as new_command

BASE = [
    ".gitignore",
    "README.md",
    "config/application-dev.yaml",
    "config/application.yaml",
    "pyproject.toml",
    "shop/__init__.py",
    "shop/greeting.py",
    "shop/tools.py",
    "tests/test_tools.py",
]


def files_of(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def functions_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def test_the_default_project(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop")
    assert folder == tmp_path / "shop"
    assert files_of(folder) == sorted(BASE)
    pyproject = tomllib.loads((folder / "pyproject.toml").read_text())
    assert pyproject["project"]["dependencies"] == ["mesh-framework"]
    assert pyproject["tool"]["pytest"]["ini_options"]["mesh_app"] == "shop"
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["shop"]
    # this checkout is an editable install, so uv finds mesh_framework here
    assert Path(pyproject["tool"]["uv"]["sources"]["mesh-framework"]["path"]) == Path(__file__).parents[2]
    settings = yaml.safe_load((folder / "config/application.yaml").read_text())
    assert settings["server"]["port"] == 8080 and settings["greeting"]["template"] == "Hello, {name}!"
    assert "agents" not in settings and "mcp" not in settings
    dev = yaml.safe_load((folder / "config/application-dev.yaml").read_text())
    assert dev == {"server": {"port": 0}, "greeting": {"excited": True}, "logging": {"level": "DEBUG"}}
    agent = (folder / "shop/__init__.py").read_text()
    assert '@mesh_agent(\n    name="shop",' in agent and "exclude" not in agent
    assert '@config_properties("greeting")' in (folder / "shop/greeting.py").read_text()
    # two tools and one calling this agent's own `add` through the mesh
    assert functions_of(folder / "shop/tools.py") == [
        "Greeting",
        "GreetingTools",
        "add",
        "Arithmetic",
        "sum_of_squares",
    ]
    assert '@selector("add", required=True)' in (folder / "shop/tools.py").read_text()
    readme = (folder / "README.md").read_text()
    assert "    mesh run shop\n" in readme and "    python -m pytest\n" in readme


def test_more_agents(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", agents=["billing", "order-book"])
    assert files_of(folder) == sorted(
        [
            *BASE,
            "shop/billing.py",
            "shop/order_book.py",
            "tests/test_billing_agent.py",
            "tests/test_order_book_agent.py",
        ]
    )
    settings = yaml.safe_load((folder / "config/application.yaml").read_text())
    assert settings["agents"] == {
        "billing": {"server": {"port": 8081}},
        "order-book": {"server": {"port": 8082}},
    }
    billing = (folder / "shop/billing.py").read_text()
    assert 'name="billing"' in billing and 'scan=["shop.billing"]' in billing and "port=8081" in billing
    assert "class OrderBookAgent:" in (folder / "shop/order_book.py").read_text()
    assert 'exclude=["shop.billing", "shop.order_book"]' in (folder / "shop/__init__.py").read_text()
    # the dependent tool lives in the other agents, on the first one's `add`
    assert functions_of(folder / "shop/tools.py") == ["Greeting", "GreetingTools", "add"]
    assert functions_of(folder / "shop/billing.py") == ["BillingAgent", "Arithmetic", "sum_of_squares"]
    assert 'return "shop.order_book"' in (folder / "tests/test_order_book_agent.py").read_text()
    assert "    mesh run shop shop.billing shop.order_book\n" in (folder / "README.md").read_text()


def test_an_llm_tool(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", llm=True)
    assert files_of(folder) == sorted(
        [
            *BASE,
            "config/application-azure.yaml",
            "shop/azure.py",
            "shop/clients.py",
            "shop/prompts/assistant.j2",
            "tests/test_ask.py",
        ]
    )
    # ask's OpenAI client: the app's own Azure one with `--profile azure`, in a module the scan leaves out
    assert 'exclude=["shop.azure"]' in (folder / "shop/__init__.py").read_text()
    assert functions_of(folder / "shop/clients.py") == ["AzureProperties", "Azure"]
    tools = (folder / "shop/tools.py").read_text()
    assert (
        "@mesh_llm(" in tools and "tools=[add]" in tools and "ask" in functions_of(folder / "shop/tools.py")
    )
    assert "stub_llm" in (folder / "tests/test_ask.py").read_text()
    pyproject = tomllib.loads((folder / "pyproject.toml").read_text())
    assert pyproject["project"]["dependencies"] == ["mesh-framework[openai]"]


def test_a_catalog(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", catalog=True)
    assert files_of(folder) == sorted(
        [
            *BASE,
            "config/mcp-servers.json",
            "shop/clients.py",
            "shop/servers/__init__.py",
            "shop/servers/notes.py",
            "tests/test_jot.py",
        ]
    )
    catalog = json.loads((folder / "config/mcp-servers.json").read_text())
    assert catalog == {"mcpServers": {"notes": {"command": "python", "args": ["-m", "shop.servers.notes"]}}}
    settings = yaml.safe_load((folder / "config/application.yaml").read_text())
    assert settings["mcp"] == {"catalog": "mcp-servers.json"}
    assert 'exclude=["shop.servers.*"]' in (folder / "shop/__init__.py").read_text()
    assert "jot" in functions_of(folder / "shop/tools.py")
    assert functions_of(folder / "shop/clients.py") == ["Notes", "Clients"]  # jot's client, a @bean


def test_every_option_together_is_lint_clean(tmp_path: Path) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed beside this Python")
    create_project(
        "shop", directory=tmp_path / "full", agents=["billing", "order-book"], llm=True, catalog=True
    )
    create_project("plain", directory=tmp_path / "plain")
    for folder in (tmp_path / "full", tmp_path / "plain"):
        for args in (["check", "--no-cache", "."], ["format", "--no-cache", "--check", "."]):
            result = subprocess.run(
                [ruff, *args], cwd=folder, check=False, capture_output=True, text=True, timeout=60
            )
            assert result.returncode == 0, result.stdout + result.stderr


def test_the_directory_defaults_to_the_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = create_project("my-shop")
    assert folder == tmp_path / "my-shop"
    assert (folder / "my_shop/__init__.py").is_file()


def test_existing_files_are_listed_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    (folder / "shop").mkdir(parents=True)
    (folder / "shop/tools.py").write_text("mine\n")
    (folder / "README.md").write_text("mine\n")
    (folder / "notes.txt").write_text("unrelated\n")
    with pytest.raises(ExistingFilesError) as caught:
        create_project("shop", directory=folder)
    assert caught.value.paths == [folder / "README.md", folder / "shop/tools.py"]
    assert str(caught.value) == (
        f"{folder} already has 2 of the project's files (README.md, shop/tools.py); "
        "choose another directory, or pass force=True to overwrite them"
    )
    assert files_of(folder) == ["README.md", "notes.txt", "shop/tools.py"]  # nothing written
    assert (folder / "shop/tools.py").read_text() == "mine\n"
    create_project("shop", directory=folder, force=True)
    assert "def add(" in (folder / "shop/tools.py").read_text()
    assert (folder / "notes.txt").read_text() == "unrelated\n"  # files the project lacks stay


def test_an_existing_folder_without_those_files_is_fine(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop/.git").mkdir()
    create_project("shop", directory=tmp_path / "shop")
    assert (tmp_path / "shop/shop/tools.py").is_file()


def test_a_file_where_the_folder_should_be(tmp_path: Path) -> None:
    (tmp_path / "shop").write_text("")
    with pytest.raises(ScaffoldError, match="exists and is not a directory"):
        create_project("shop", directory=tmp_path / "shop")


def new(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="mesh")
    new_command.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["new", *argv])
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "shop"
    code, out, err = new(
        ["shop", "-d", str(folder), "--agent", "billing,order-book", "--llm", "--catalog"], capsys
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == f"created shop in {folder}; next:"
    assert "mesh run shop shop.billing shop.order_book" in out and "python -m pytest" in out
    assert (folder / "shop/order_book.py").is_file() and (folder / "shop/servers/notes.py").is_file()
    assert (folder / "tests/test_ask.py").is_file()

    code, out, err = new(["shop", "-d", str(folder)], capsys)
    assert code == 1 and out == ""
    assert (
        err.startswith(f"mesh new: {folder} already has 9 of the project's files (") and err.count("\n") == 1
    )
    assert err.endswith("); choose another --directory, or overwrite them with --force\n")
    assert "force=True" not in err
    assert new(["shop", "-d", str(folder), "--force"], capsys)[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"), [(["My App"], "try 'my-app'"), (["shop", "--agent", "tools"], "tools")]
)
def test_the_command_on_bad_names_is_a_usage_error(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = new([*argv, "-d", str(tmp_path / "x")], capsys)
    assert code == 2 and out == ""
    assert err.startswith("mesh new: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_without_a_checkout_the_readme_says_where_to_install_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mesh_framework.scaffold.plan.framework_checkout", lambda: None)  # a wheel install
    folder = create_project("shop", directory=tmp_path / "shop")
    assert "uv" not in tomllib.loads((folder / "pyproject.toml").read_text()).get("tool", {})
    assert "pip install -e /path/to/mesh_framework\n" in (folder / "README.md").read_text()


def test_the_command_in_the_mesh_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # what cli/entry.py's two lines do: `from .scaffold import command as scaffold_command` and
    # `scaffold_command.register(commands)` in build_parser(); its main() then calls `args.handler(args)`
    from mesh_framework import cli

    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "new" not in commands.choices:
        new_command.register(commands)
    args = parser.parse_args(["new", "shop", "--directory", str(tmp_path / "shop"), "--agent", "billing"])
    assert args.handler(args) == 0
    assert (tmp_path / "shop/shop/billing.py").is_file()
    with pytest.raises(SystemExit) as caught:
        parser.parse_args(["new"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1  # the house's one-line usage error


def test_the_layout_in_the_docs_is_what_is_generated(tmp_path: Path) -> None:
    doc = (Path(__file__).parents[2] / "docs/new-project.md").read_text()
    section = doc.split("## The layout")[1].split("\n## ")[0]
    listed = [line.split()[0] for line in section.splitlines() if line.startswith("    ")]
    folder = create_project("shop", directory=tmp_path / "shop", agents=["billing"], llm=True, catalog=True)
    assert sorted(listed) == files_of(folder)
