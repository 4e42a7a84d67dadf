"""`mesh new`: create a project (an agent, a component, tools, settings, tests) from templates.

    from mesh_framework.scaffold import create_project

    create_project("shop", agents=["billing"], llm=True, catalog=True)

`mesh_framework.scaffold.command` holds the `mesh new` subcommand (`add_parser`, `run`). The names below
are imported on first use, so that the `mesh` command's parser loads none of the templates' machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import ExistingFilesError, InvalidNameError, ScaffoldError
    from .project import create_project

__all__ = ["ExistingFilesError", "InvalidNameError", "ScaffoldError", "create_project"]


def __getattr__(name: str) -> Any:
    if name == "create_project":
        from .project import create_project

        return create_project
    if name in __all__:
        from . import errors

        return getattr(errors, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
