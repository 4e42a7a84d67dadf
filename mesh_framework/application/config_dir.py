"""Where an agent's configuration folder is: `--config` or `MESH_CONFIG` when given, else the first `config/`
folder found beside the agent's module, beside its package, or in the working directory."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from ..config.loader import find_config_dir
from ..errors import ConfigError
from ..specs import AgentSpec

__all__ = ["config_dir_of"]


def config_dir_of(agent: AgentSpec, config: str | Path | None, environ: Mapping[str, str]) -> Path | None:
    """The folder holding `application.yaml` (a file given names its folder); None when there is none.

    Raises ConfigError when the folder given explicitly does not exist."""
    explicit = config or environ.get("MESH_CONFIG")
    if explicit:
        path = Path(explicit)
        if path.is_file():
            return path.parent
        if not path.is_dir():
            raise ConfigError(
                [
                    f"config = {str(explicit)!r}: no such file or directory; point --config (or "
                    "MESH_CONFIG) at the folder holding application.yaml"
                ]
            )
        return path
    module_file = getattr(sys.modules[agent.module], "__file__", None)
    candidates: list[Path] = []
    if module_file:
        package_dir = Path(module_file).resolve().parent
        candidates += [package_dir / "config", package_dir.parent / "config"]
    candidates.append(Path.cwd() / "config")
    return find_config_dir(candidates)
