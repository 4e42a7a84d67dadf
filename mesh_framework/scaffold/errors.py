"""What `create_project` raises: a name it cannot use, or files it would overwrite."""

from __future__ import annotations

from pathlib import Path

from ..errors import MeshError

__all__ = ["ExistingFilesError", "InvalidNameError", "ScaffoldError"]


class ScaffoldError(MeshError):
    """The project could not be created; nothing was written."""


class InvalidNameError(ScaffoldError, ValueError):
    """A project or agent name that cannot become a Python package, module or agent name."""


class ExistingFilesError(ScaffoldError):
    """Files the project would overwrite; `paths` lists them (pass `force=True` to overwrite), `found`
    says so in words (`mesh new` adds its own options to it)."""

    def __init__(self, directory: Path, paths: list[Path]) -> None:
        self.directory = directory
        self.paths = paths
        shown = ", ".join(str(p.relative_to(directory)) for p in paths[:10])
        more = f" and {len(paths) - 10} more" if len(paths) > 10 else ""
        self.found = f"{directory} already has {len(paths)} of the project's files ({shown}{more})"
        super().__init__(f"{self.found}; choose another directory, or pass force=True to overwrite them")
