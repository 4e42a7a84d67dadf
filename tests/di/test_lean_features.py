"""An agent loads a feature's packages only when it uses the feature: a minimal app (one plain tool, no
registry, metrics off) built and ready to serve imports no module of jobs' runner, the LLM, the MCP server
catalog, catalog callbacks, the catalog gateway, metrics (nor prometheus_client), MCP authorization, the
prompt and resource catalogs, the registry or the span helpers of tracing; each of them is imported once
the app uses it (the registry's server only once the agent starts the embedded registry).

Each check loads and builds the app as a fresh interpreter would and reads `sys.modules` there: in a fork
of one process that imported only `mesh_framework.app` (tests/forked_imports.py), what the check's code
imports first.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..agents import ROOT
from ..forked_imports import Forks, forks

pytestmark = pytest.mark.timeout(120)

PLAIN_TOOL = """
@mesh_tool(capability="add")
async def add(a: int, b: int) -> int:
    return a + b
"""
APP = """
from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool

@mesh_agent(name="lean", version="0.1.0")
class Lean:
    pass
{tools}
"""
# What the first calls of a kind load (a streamed or asking tool, a job, a sync tool, a tools/call, a catalog
# server's failure), in any app: never before them.
FIRST_CALLS = (
    "mesh_framework.protocol.context_stream",
    "mesh_framework.protocol.input_round",
    "mesh_framework.jobs.client",
    "mesh_framework.jobs.handle",
    "mesh_framework.tools.threads",
    "mesh_framework.protocol.tool_call",
    "mesh_framework.callbacks.failures",
    "mesh_framework.jobs.task_call",
)
# A feature's module that only its use loads, by feature.
FEATURES = {
    "jobs": "mesh_framework.jobs.service",
    "llm": "mesh_framework.llm.wiring",
    "catalog": "mesh_framework.catalog.server_catalog",
    "callbacks": "mesh_framework.callbacks.mcp",
    "gateway": "mesh_framework.callbacks.catalog_gateway",
    "metrics": "prometheus_client",
    "security": "mesh_framework.security.authorization",
    "prompts": "mesh_framework.prompts.prompt_catalog",
    "resources": "mesh_framework.resources.resource_catalog",
    "skills": "mesh_framework.skills.skill_catalog",
}
# Every module of these packages stays unloaded in the minimal app (jobs.context and jobs.model hold the
# JobContext a tool may take, so they load with the tools), but a feature's auto-configuration and its
# package's `__init__` (lazy exports), which decide whether the feature is used.
UNUSED_PACKAGES = (
    "mesh_framework.llm",
    "mesh_framework.catalog",
    "mesh_framework.callbacks",
    "mesh_framework.metrics",
    "prometheus_client",
    "mesh_framework.jobs.service",
    "mesh_framework.jobs.runner",
    "mesh_framework.jobs.tools",
    "mesh_framework.security.authorization",
    "mesh_framework.security.verifiers",
    "mesh_framework.di.features",
    "mesh_framework.prompts.prompt_catalog",
    "mesh_framework.prompts.markdown",
    "mesh_framework.resources.resource_catalog",
    "mesh_framework.resources.files",
    "mesh_framework.skills",
    "mesh_framework.registry",
    "mesh_framework.tracing.spans",
    "mesh_framework.tracing.carriers",
    "mesh_framework.tracing.setup",
    "mesh_framework.tracing.tracer",
    "mesh_framework.tracing.otel",
    *FIRST_CALLS,
)
MINIMAL = {"registry.enabled": False, "metrics.enabled": False}


@pytest.fixture(scope="module")
def interpreter() -> Iterator[Forks]:
    with forks() as forking:
        yield forking


def built_modules(
    interpreter: Forks, directory: Path, name: str, tools: str, cli: dict[str, object], then: str = ""
) -> set[str]:
    """Load and build the app `name` (written to `directory`) as a fresh interpreter would, run `then`
    (`app`, `asgi` are defined); its modules."""
    (directory / f"{name}.py").write_text(textwrap.dedent(APP.format(tools=tools)))
    code = (
        "import json, sys\n"
        "from mesh_framework.app import MeshApplication\n"
        f"app = MeshApplication.load({name!r}, cli=json.loads(sys.argv[1]), environ={{}})\n"
        "asgi = app.build()\n"
        f"{then}\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = interpreter.run(code, [json.dumps(cli)], directory)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def deciding(module: str) -> bool:
    """A feature's auto-configuration, or its package (whose `__init__` only names lazy exports)."""
    package = module.count(".") == 1 and (ROOT / module.replace(".", "/") / "__init__.py").is_file()
    return module.endswith(".auto_configuration") or package


def loaded(modules: set[str], feature: str) -> bool:
    return FEATURES[feature] in modules


def test_a_minimal_app_imports_no_feature_package(interpreter: Forks, tmp_path: Path) -> None:
    modules = built_modules(interpreter, tmp_path, "lean_minimal", PLAIN_TOOL, MINIMAL)
    unused = sorted(m for m in modules if m.startswith(UNUSED_PACKAGES) and not deciding(m))
    assert unused == []
    assert "mesh_framework.tools.wrapper" in modules  # it did build the tool


def test_metrics_on_loads_prometheus(interpreter: Forks, tmp_path: Path) -> None:
    modules = built_modules(
        interpreter, tmp_path, "lean_metrics", PLAIN_TOOL, {**MINIMAL, "metrics.enabled": True}
    )
    assert loaded(modules, "metrics") and "mesh_framework.metrics.mesh_metrics" in modules
    assert not loaded(modules, "llm") and not loaded(modules, "jobs")


def test_a_component_asking_for_metrics_gets_them_while_metrics_are_off(
    interpreter: Forks, tmp_path: Path
) -> None:
    component = (
        PLAIN_TOOL + "\nfrom mesh_framework import component\n"
        "from mesh_framework.metrics import MeshMetrics\n\n"
        "@component\nclass Counts:\n    def __init__(self, metrics: MeshMetrics) -> None:\n"
        "        self.metrics = metrics\n"
    )
    check = (
        "from starlette.testclient import TestClient\n"
        "assert type(app.container.counts().metrics).__name__ == 'MeshMetrics'\n"
        "local = TestClient(asgi, base_url='http://127.0.0.1')\n"
        "assert local.get('/metrics').status_code == 404  # not served: metrics are off\n"
    )
    assert loaded(built_modules(interpreter, tmp_path, "lean_counts", component, MINIMAL, check), "metrics")


def test_a_background_tool_or_a_registry_loads_the_job_service(interpreter: Forks, tmp_path: Path) -> None:
    background = '\n@mesh_tool(capability="slow", background=True)\nasync def slow() -> int:\n    return 1\n'
    assert loaded(built_modules(interpreter, tmp_path, "lean_jobs", background, MINIMAL), "jobs")
    # the registry is not reached by a build: joining happens once the agent serves
    with_registry = built_modules(
        interpreter, tmp_path, "lean_joins", PLAIN_TOOL, {**MINIMAL, "registry.enabled": True}
    )
    assert loaded(with_registry, "jobs")


def test_an_llm_tool_loads_the_llm_modules(interpreter: Forks, tmp_path: Path) -> None:
    tool = (
        '\n@mesh_tool(capability="ask")\n@mesh_llm("openai/gpt-4o-mini")\n'
        "async def ask(q: str, llm: MeshLlmAgent) -> str:\n    return await llm(q)\n"
    )
    modules = built_modules(interpreter, tmp_path, "lean_llm", tool, MINIMAL)
    assert loaded(modules, "llm") and loaded(modules, "callbacks")
    assert not {"openai", "anthropic"} & {m.split(".")[0] for m in modules}  # vendors: on first call


def test_catalog_servers_load_the_catalog_and_a_gateway_the_gateway(
    interpreter: Forks, tmp_path: Path
) -> None:
    server = {"command": sys.executable, "args": ["-c", "pass"]}
    with_servers = built_modules(
        interpreter, tmp_path, "lean_catalog", PLAIN_TOOL, {**MINIMAL, "mcp.servers": {"s": server}}
    )
    assert loaded(with_servers, "catalog") and not loaded(with_servers, "gateway")
    gateway = {**MINIMAL, "mcp.servers": {"s": server}, "mcp.gateway": ["s"]}
    with_gateway = built_modules(interpreter, tmp_path, "lean_gateway", PLAIN_TOOL, gateway)
    assert loaded(with_gateway, "gateway") and loaded(with_gateway, "callbacks")


def test_auth_settings_or_scoped_tools_load_authorization(interpreter: Forks, tmp_path: Path) -> None:
    tokens = {**MINIMAL, "auth.tokens": [{"token": "t0ken-value-long-enough", "scopes": ["read"]}]}
    assert loaded(built_modules(interpreter, tmp_path, "lean_auth", PLAIN_TOOL, tokens), "security")
    verifier = (
        PLAIN_TOOL + "\nfrom mesh_framework import component\n"
        "from mesh_framework.security import StaticTokenVerifier\n\n"
        "@component\nclass Tokens(StaticTokenVerifier):\n"
        "    def __init__(self) -> None:\n        super().__init__([('t0ken-value-long-enough', (), 'c')])\n"
    )
    assert loaded(built_modules(interpreter, tmp_path, "lean_verifier", verifier, MINIMAL), "security")


def test_a_prompt_a_resource_or_a_prompt_folder_loads_their_catalogs(
    interpreter: Forks, tmp_path: Path
) -> None:
    prompt = (
        "\nfrom mesh_framework import mesh_prompt\n\n"
        '@mesh_prompt()\ndef greet(name: str) -> str:\n    return f"Hello {name}"\n'
    )
    modules = built_modules(interpreter, tmp_path, "lean_prompt", PLAIN_TOOL + prompt, MINIMAL)
    assert loaded(modules, "prompts") and loaded(modules, "resources")
    resource = (
        "\nfrom mesh_framework import mesh_resource\n\n"
        '@mesh_resource("data://x")\ndef x() -> str:\n    return "x"\n'
    )
    assert loaded(
        built_modules(interpreter, tmp_path, "lean_resource", PLAIN_TOOL + resource, MINIMAL), "resources"
    )
    (tmp_path / "prompts").mkdir()  # the default prompt folder, beside the app module
    (tmp_path / "prompts" / "hello.md").write_text("---\ndescription: Say hello\n---\nHello!\n")
    assert loaded(built_modules(interpreter, tmp_path, "lean_folder", PLAIN_TOOL, MINIMAL), "prompts")


# Built, the agent has its tracer but not the span helpers; its first traced call loads them and binds them
# on the tracer (the core's later calls reach them directly).
FIRST_TRACED_CALL = (
    "from mesh_framework import observation\n"
    "assert type(observation.tracer).__name__ == 'SpanTracer'\n"
    "assert 'mesh_framework.tracing.spans' not in sys.modules\n"
    "with observation.tracer.outbound_call('add', 'add'):\n"
    "    pass\n"
    "from mesh_framework.tracing import spans\n"
    "assert observation.tracer.outbound_call is spans.outbound_call\n"
    "assert observation.tracer.incoming_call is spans.incoming_call\n"
)


def test_tracing_or_json_logs_load_the_span_helpers_with_the_first_traced_call(
    interpreter: Forks, tmp_path: Path
) -> None:
    traced = built_modules(
        interpreter,
        tmp_path,
        "lean_traced",
        PLAIN_TOOL,
        {**MINIMAL, "tracing.enabled": True, "tracing.exporter": "none"},
        FIRST_TRACED_CALL,
    )
    assert "mesh_framework.tracing.spans" in traced and "mesh_framework.tracing.tracer" in traced
    json_logs = built_modules(
        interpreter,
        tmp_path,
        "lean_json_logs",
        PLAIN_TOOL,
        {**MINIMAL, "logging.format": "json"},
        FIRST_TRACED_CALL,
    )
    assert "mesh_framework.tracing.spans" in json_logs


def test_an_agent_loads_its_dependencies_proxies_once_the_registry_resolves_one(
    interpreter: Forks, tmp_path: Path
) -> None:
    """Built with the registry on, an agent whose tool has a dependency has loaded neither the mesh's
    joining machinery (heartbeat, topology: joining loads them) nor the proxies; the registry's first
    answer loads the topology and the proxies, and fills the slot."""
    tool = (
        "\nfrom mesh_framework import McpMeshTool\n\n"
        '@mesh_tool(capability="twice", dependencies=["add"])\n'
        "async def twice(a: int, add: McpMeshTool | None = None) -> int:\n    return a\n"
    )
    joining = ["heartbeat", "subscription", "unresolved", "topology", "dispatcher", "registration"]
    calling = ["proxy", "transport", "direct_http"]
    later = [f"mesh_framework.mesh.{name}" for name in joining + calling]
    answer = {
        "dependencies_resolved": {
            "twice": [{"agent_id": "p-1", "endpoint": "http://127.0.0.1:9", "function_name": "add"}]
        }
    }
    check = (
        f"assert not set({later!r}) & set(sys.modules), sorted(set({later!r}) & set(sys.modules))\n"
        "runtime = app.container.mesh_runtime()\n"
        f"runtime._on_answer({answer!r})\n"
        "slot = app.container.tools().get('twice').slots[0]\n"
        "assert type(slot).__name__ == 'McpMeshToolProxy', slot\n"
    )
    joins = {**MINIMAL, "registry.enabled": True}
    modules = built_modules(interpreter, tmp_path, "lean_dependency", PLAIN_TOOL + tool, joins, check)
    answered = ["topology", "dispatcher", "registration", *calling]
    assert {f"mesh_framework.mesh.{name}" for name in answered} <= modules


def test_joining_without_a_registry_url_loads_the_embedded_registry_but_not_its_server(
    interpreter: Forks, tmp_path: Path
) -> None:
    """The registry's server, store and routes load when the agent starts the registry, once it serves."""
    modules = built_modules(
        interpreter, tmp_path, "lean_embedded", PLAIN_TOOL, {**MINIMAL, "registry.enabled": True}
    )
    assert "mesh_framework.registry.in_process" in modules
    assert (
        not {
            "mesh_framework.registry.registry_server",
            "mesh_framework.registry.registry_app",
            "mesh_framework.registry.store",
        }
        & modules
    )


def test_a_skill_folder_loads_the_skills_modules(interpreter: Forks, tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "hello"  # the default skill folder, beside the app module
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Say hello\n---\nHello!\n")
    modules = built_modules(interpreter, tmp_path, "lean_skills", PLAIN_TOOL, MINIMAL)
    assert loaded(modules, "skills") and "mesh_framework.skills.frontmatter" in modules
    assert not loaded(modules, "prompts")  # a skill folder is no prompt folder


# What the starter app (a bit of every feature) loads only once it uses it: the framework's version for a
# catalog connection given no client info, a user's sign-in for a request to an HTTP catalog server, a job's
# output capture for a job run, a route's event stream for a streamed answer and its Bearer challenge for a
# route that asks for scopes, an LLM agent's tool loop, media and the mesh's providers and tools for its first
# run (the starter's model is a vendor's, its tools local and a catalog server's); the mesh's topology and
# proxies (its web routes and LLM tool name the topology's events and keys) for the registry's first answer.
# The LLM's provider service and its request model are only an app's that serves a model (a provider tool, or
# a component asking for the service); an LLM's turns and usage, only a model's first answer. Its Markdown
# prompt folder plans no decorated prompt or resource, static file nor URI template: their decorators', files'
# and templates' modules are not loaded, nor a prompt's messages or a resource's contents before a first read.
# It marks no `@status_section` and no tool of it returns MCP content (TextContent, ToolResult, ...): neither
# module is loaded (a tool's code that uses one loads it). Its media store is made, but media is read back
# (and sniffed) only with a first fetch. It marks no click command: the marks' module is not loaded, and
# neither the jobs' nor the command tools' condition looks through its modules for one. Joining the mesh
# loads the pooled HTTP client and the console's push, stopping the graceful stop; its catalog server is a
# stdio one, which signs no user in. A dependency's typed results are checked (and schemas compared by the
# subset rule) once the registry resolves one; the topology's dispatcher loads with the registry's first
# answer, the embedded registry's lookup with the join, the metrics' page with its first scrape. No tool of it
# takes a call-scoped bean: their wrapper's module is not loaded. Its tracer (the registry gathers spans)
# loads the span helpers with its first traced call. A call served as a ToolContext's event stream, or of a
# tool with dependencies (whose questions for the client it relays), loads its modules with the first one.
# The registry's job API (its client, a submitted job's handle) loads when the agent joins a registry; the
# worker threads of sync tools, with a first sync call; the reading of a tools/call, with the first one; the
# words of a catalog server's failure, with its first failure; how a call served as an MCP task answers, with
# the first such call.
STARTER_UNUSED = (
    "mesh_framework._version",
    "mesh_framework.catalog.oauth_login",
    "mesh_framework.catalog.user_tokens",
    "mesh_framework.jobs.capture",
    "mesh_framework.routes.event_stream",
    "mesh_framework.security.challenge",
    "mesh_framework.llm.loop",
    "mesh_framework.llm.media",
    "mesh_framework.llm.mesh_provider",
    "mesh_framework.llm.vendors._openai_media",
    "mesh_framework.callbacks.mesh",
    "mesh_framework.mesh.topology",
    "mesh_framework.mesh.proxy",
    "mesh_framework.mesh.transport",
    "mesh_framework.mesh.direct_http",
    "mesh_framework.llm.provider",
    "mesh_framework.llm.provider_beans",
    "mesh_framework.llm.types",
    "mesh_framework.prompts.decorator",
    "mesh_framework.prompts.messages",
    "mesh_framework.resources.decorator",
    "mesh_framework.resources.files",
    "mesh_framework.resources.contents",
    "mesh_framework.resources.template",
    "mesh_framework.status.status_marks",
    "mesh_framework.content",
    "mesh_framework.media.media",
    "mesh_framework.media.sniff",
    "mesh_framework.command_tools.command_marks",
    "mesh_framework.mesh.http_pool",
    "mesh_framework.console_feed.push",
    "mesh_framework.application.shutdown",
    "mesh_framework.catalog.user_auth",
    "mesh_framework.schemas.typed",
    "mesh_framework.schemas.compatibility",
    "mesh_framework.mesh.dispatcher",
    "mesh_framework.mesh.embedded_lookup",
    "mesh_framework.metrics.route",
    "mesh_framework.tools.call_scoped",
    "mesh_framework.tracing.spans",
    "mesh_framework.tracing.carriers",
    "mesh_framework.tracing.otel",
    *FIRST_CALLS,
)


def test_the_starter_app_started_loads_what_its_first_calls_need_only(interpreter: Forks) -> None:
    code = (
        "import asyncio, json, sys\n"
        "from mesh_framework.app import MeshApplication\n"
        "app = MeshApplication.load('starter_app', environ={})\n"
        "async def started():\n"
        "    await app.start_beans()\n"
        "    app.build()\n"
        "    await app.prepare()\n"
        "    await app.container.bean_lifecycle().close()\n"
        "asyncio.run(started())\n"
        "modules = sorted(sys.modules)\n"
        "from mesh_framework.llm.provider import MeshLlmRequest\n"
        "print(json.dumps([MeshLlmRequest.__pydantic_complete__, modules]))\n"
    )
    done = interpreter.run(code, [], ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    built, listed = json.loads(done.stdout.splitlines()[-1])
    modules = set(listed)
    assert "mesh_framework.callbacks.mcp" in modules and "mesh_framework.jobs.runner" in modules
    assert sorted(set(STARTER_UNUSED) & modules) == []
    assert built is False  # the LLM provider's request model: built for a provider tool's signature only
