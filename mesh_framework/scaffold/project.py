"""`create_project`: check the names, render every file, refuse to overwrite unless forced, then write."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .errors import ExistingFilesError, ScaffoldError
from .names import agent_names, project_names
from .plan import context, plan

__all__ = ["create_project"]


def create_project(
    name: str,
    *,
    directory: str | os.PathLike[str] | None = None,
    agents: Iterable[str] = (),
    llm: bool = False,
    catalog: bool = False,
    force: bool = False,
) -> Path:
    """Create project `name` in `directory` (default `./NAME`) and return that folder.

    The project: `pyproject.toml` (pytest's `mesh_app` set), a package with an agent, a component with a
    typed config section and tools (one calling another through the mesh), `config/application.yaml` with a
    `dev` profile, tests with the pytest kit and a README. `agents` adds agents (a module each, with the
    next ports), `llm` an `@mesh_llm` tool, `catalog` an MCP server catalog with a local stdio server.

    Raises InvalidNameError (a ValueError) for a name that cannot be used, and ExistingFilesError listing
    the files that already exist unless `force`; nothing is written then.

        >>> create_project("shop", agents=["billing"], llm=True)  # doctest: +SKIP
        PosixPath('/home/me/shop')
    """
    from .render import render  # Jinja2: loaded by `mesh new`, not by every `mesh` command

    if isinstance(agents, str):
        raise TypeError("agents is a list of names, e.g. agents=['billing'], not a string")
    project = project_names(name)
    others = agent_names(agents, project)
    folder = Path(directory if directory is not None else Path.cwd() / name).absolute()
    files = render(
        plan(project, others, llm=llm, catalog=catalog), context(project, others, llm=llm, catalog=catalog)
    )
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder} exists and is not a directory; choose another directory")
    existing = [folder / path for path in files if (folder / path).exists()]
    if existing and not force:
        raise ExistingFilesError(folder, existing)
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
    return folder
