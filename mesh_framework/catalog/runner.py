"""Run a coding agent (Claude Code, Gemini CLI) non-interactively with a goal and catalog servers.

    runner = ClaudeCodeRunner(catalog, default_servers=["filesystem"], timeout=300)
    result = await runner.run("Summarize README.md", servers=["github"])
    print(result.check().stdout)

The servers are translated into the agent's own format, written to a private temporary file handed over
with the agent's own mechanism (`--mcp-config` for Claude Code, the system settings file that
`GEMINI_CLI_SYSTEM_SETTINGS_PATH` names for Gemini CLI) and removed when the run ends. On timeout the
agent's whole process group (its MCP servers included) is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..errors import CatalogError, MeshError
from .definitions import McpServerDefinition
from .selection import select_servers
from .server_catalog import McpServerCatalog
from .translators import to_claude_code, to_gemini

__all__ = ["AgentRunResult", "ClaudeCodeRunner", "CodingAgentError", "CodingAgentRunner", "GeminiCliRunner"]

logger = logging.getLogger("mesh_framework.catalog")

_KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
_DRAIN_LIMIT = 5.0  # seconds to collect output once the agent is gone (a stray grandchild may hold a pipe)


class CodingAgentError(MeshError):
    """A coding agent could not be started, timed out, or failed (`AgentRunResult.check()`)."""


@dataclass(frozen=True)
class AgentRunResult:
    """What one run produced. `config` is what the agent was given (secrets included, so not in repr);
    `config_path` is where it was written, removed once the run ended."""

    agent: str
    command: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration: float
    config_path: Path
    config: dict[str, Any] = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def error(self) -> str | None:
        """Why the run failed, on one line; None when it succeeded."""
        if self.timed_out:
            return (
                f"{self.agent} timed out after {self.duration:.1f} s and was stopped with its process group; "
                "raise the runner's timeout"
            )
        if self.exit_code != 0:
            last = next((line for line in reversed(self.stderr.splitlines()) if line.strip()), "")
            return f"{self.agent} exited with code {self.exit_code}" + (f": {last.strip()}" if last else "")
        return None

    def check(self) -> AgentRunResult:
        """This result, or CodingAgentError when the agent failed or timed out."""
        if self.error is not None:
            raise CodingAgentError(self.error)
        return self

    def json(self) -> Any:
        """stdout parsed as JSON (`output_format="json"`)."""
        try:
            return json.loads(self.stdout)
        except ValueError as exc:
            raise CodingAgentError(
                f"{self.agent} did not print JSON ({exc}); run with output_format='json'"
            ) from None


class CodingAgentRunner:
    """Base of the runners: server selection, temporary configuration, the process and its timeout."""

    agent: ClassVar[str]
    default_executable: ClassVar[str]
    install_hint: ClassVar[str]

    def __init__(
        self,
        catalog: McpServerCatalog | Mapping[str, McpServerDefinition] | None = None,
        *,
        executable: str | None = None,
        default_servers: Iterable[str] = (),
        timeout: float | None = 600.0,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        extra_args: Sequence[str] = (),
        output_format: str | None = "text",
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        if catalog is not None and not isinstance(catalog, McpServerCatalog):
            catalog = McpServerCatalog(catalog)
        self.catalog = catalog
        self.executable = executable or self.default_executable
        self.default_servers = list(default_servers)
        self.timeout = timeout
        self.cwd = cwd
        self.env = dict(env or {})
        self.extra_args = list(extra_args)
        self.output_format = output_format
        self.overrides = overrides

    async def run(
        self,
        goal: str,
        servers: Iterable[str] | Mapping[str, McpServerDefinition] | None = None,
        *,
        timeout: float | None = None,
        extra_args: Sequence[str] = (),
    ) -> AgentRunResult:
        """Run the agent on `goal` with the default servers plus `servers` (names of the catalog, or
        definitions by name). `timeout` overrides the runner's."""
        definitions = self._select(servers)
        executable = self._find_executable()
        workdir = Path(tempfile.mkdtemp(prefix=f"mesh-{self.agent.split()[0].lower()}-"))
        try:
            config = self.config_for(definitions)
            config_path = workdir / self.config_name
            config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
            config_path.chmod(0o600)
            argv = [
                executable,
                *self.arguments(goal, config_path, definitions, [*self.extra_args, *extra_args]),
            ]
            env = {**os.environ, **self.env, **self.environment(config_path)}
            limit = self.timeout if timeout is None else timeout
            exit_code, stdout, stderr, timed_out, duration = await _execute(argv, env, self.cwd, limit)
            if timed_out:
                logger.warning(
                    "%s timed out after %.1f s; its process group was stopped", self.agent, duration
                )
            return AgentRunResult(
                agent=self.agent,
                command=tuple(argv),
                exit_code=exit_code,
                stdout=stdout,
                stderr=stderr,
                timed_out=timed_out,
                duration=duration,
                config_path=config_path,
                config=config,
            )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def run_sync(
        self,
        goal: str,
        servers: Iterable[str] | Mapping[str, McpServerDefinition] | None = None,
        *,
        timeout: float | None = None,
        extra_args: Sequence[str] = (),
    ) -> AgentRunResult:
        """`run` for code without an event loop."""
        return asyncio.run(self.run(goal, servers, timeout=timeout, extra_args=extra_args))

    # -- what each agent defines -----------------------------------------------------------------

    config_name: ClassVar[str]

    def config_for(self, servers: Mapping[str, McpServerDefinition]) -> dict[str, Any]:
        raise NotImplementedError

    def arguments(
        self, goal: str, config_path: Path, servers: Mapping[str, McpServerDefinition], extra: list[str]
    ) -> list[str]:
        raise NotImplementedError

    def environment(self, config_path: Path) -> dict[str, str]:
        return {}

    def goal_arguments(self, goal: str, extra: list[str]) -> list[str]:
        """`-p GOAL [--output-format FORMAT] EXTRA...`: how both CLIs take a non-interactive goal."""
        args = ["-p", goal]
        if self.output_format:
            args += ["--output-format", self.output_format]
        return [*args, *extra]

    # -- helpers ---------------------------------------------------------------------------------

    def _select(
        self, servers: Iterable[str] | Mapping[str, McpServerDefinition] | None
    ) -> dict[str, McpServerDefinition]:
        if isinstance(servers, Mapping):
            chosen = select_servers(self.catalog, self.default_servers) if self.catalog is not None else {}
            return {**chosen, **servers}
        names = [*self.default_servers, *(servers or ())]
        if self.catalog is None:
            if names:
                raise CatalogError(
                    f"{self.agent}: servers {', '.join(names)} were asked for, but the runner has no "
                    "catalog; pass one, or pass definitions by name"
                )
            return {}
        return select_servers(self.catalog, self.default_servers, servers)

    def _find_executable(self) -> str:
        found = shutil.which(self.executable)
        if found is None:
            raise CodingAgentError(
                f"{self.agent}: the executable '{self.executable}' was not found (PATH or path); install it "
                f"({self.install_hint}) or pass executable=PATH"
            )
        return found


class ClaudeCodeRunner(CodingAgentRunner):
    """`claude -p GOAL --output-format FORMAT ... --strict-mcp-config --mcp-config FILE`.

    `strict_mcp_config` (default True) makes Claude Code use only the servers given, not the user's own.
    Tool permissions are Claude Code's: pass e.g. `extra_args=["--allowedTools", "mcp__github"]`.
    """

    agent = "Claude Code"
    default_executable = "claude"
    install_hint = "npm install -g @anthropic-ai/claude-code"
    config_name = "mcp-config.json"

    def __init__(
        self,
        catalog: McpServerCatalog | Mapping[str, McpServerDefinition] | None = None,
        *,
        strict_mcp_config: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(catalog, **options)
        self.strict_mcp_config = strict_mcp_config

    def config_for(self, servers: Mapping[str, McpServerDefinition]) -> dict[str, Any]:
        return to_claude_code(servers, overrides=self.overrides)

    def arguments(
        self, goal: str, config_path: Path, servers: Mapping[str, McpServerDefinition], extra: list[str]
    ) -> list[str]:
        # --mcp-config takes several files, so it comes last: nothing after it can be mistaken for one.
        args = self.goal_arguments(goal, extra)
        if self.strict_mcp_config:
            args.append("--strict-mcp-config")
        return [*args, "--mcp-config", str(config_path)]


class GeminiCliRunner(CodingAgentRunner):
    """`gemini -p GOAL --output-format FORMAT ... --allowed-mcp-server-names NAME...`.

    The servers go into a temporary settings file named by `GEMINI_CLI_SYSTEM_SETTINGS_PATH` (the settings
    layer that overrides the user's and the project's), so the working directory is left untouched and the
    servers work in untrusted folders too. `allowed_only` (default True) lets Gemini use only these servers.
    """

    agent = "Gemini CLI"
    default_executable = "gemini"
    install_hint = "npm install -g @google/gemini-cli"
    config_name = "settings.json"
    SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

    def __init__(
        self,
        catalog: McpServerCatalog | Mapping[str, McpServerDefinition] | None = None,
        *,
        allowed_only: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(catalog, **options)
        self.allowed_only = allowed_only

    def config_for(self, servers: Mapping[str, McpServerDefinition]) -> dict[str, Any]:
        return to_gemini(servers, overrides=self.overrides)

    def arguments(
        self, goal: str, config_path: Path, servers: Mapping[str, McpServerDefinition], extra: list[str]
    ) -> list[str]:
        args = self.goal_arguments(goal, extra)
        if self.allowed_only and servers:
            args += ["--allowed-mcp-server-names", *servers]
        return args

    def environment(self, config_path: Path) -> dict[str, str]:
        return {self.SETTINGS_ENV: str(config_path)}


# -- the process ----------------------------------------------------------------------------------


async def _drain(stream: asyncio.StreamReader | None, buffer: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        buffer.extend(chunk)


def _signal_group(process: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, sig)
        else:  # pragma: no cover - Windows has no process groups to signal
            process.kill()


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM to the agent's process group, SIGKILL after a grace period."""
    _signal_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), _KILL_GRACE)
    except TimeoutError:
        _signal_group(process, getattr(signal, "SIGKILL", signal.SIGTERM))
        await process.wait()


async def _execute(
    argv: list[str], env: Mapping[str, str], cwd: str | Path | None, timeout: float | None
) -> tuple[int | None, str, str, bool, float]:
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,  # its own process group: a timeout stops its MCP servers too
        )
    except OSError as exc:
        raise CodingAgentError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
    out, err = bytearray(), bytearray()
    readers = asyncio.gather(_drain(process.stdout, out), _drain(process.stderr, err))
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        timed_out = True
        await _stop(process)
    except BaseException:  # cancelled: leave no agent behind
        await asyncio.shield(_stop(process))
        readers.cancel()
        raise
    duration = time.monotonic() - started
    with contextlib.suppress(
        TimeoutError
    ):  # a process that left the group may hold a pipe: keep what was read
        await asyncio.wait_for(readers, _DRAIN_LIMIT)
    return (
        process.returncode,
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
        timed_out,
        duration,
    )
