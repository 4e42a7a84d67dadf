"""`mesh new`: create a project (an agent, a component, tools, settings, tests) from templates.

    from mesh_framework.scaffold import create_project

    create_project("shop", agents=["billing"], llm=True, catalog=True)

`mesh_framework.scaffold.command` holds the `mesh new` subcommand (`add_parser`, `run`).
"""

from .errors import ExistingFilesError, InvalidNameError, ScaffoldError
from .project import create_project

__all__ = ["ExistingFilesError", "InvalidNameError", "ScaffoldError", "create_project"]
