"""Loading an agent: its module, settings, scan and wiring checks (the features' plans among them).

Every configuration and wiring problem is found here and reported together (`ConfigError`,
`WiringError`); nothing is instantiated yet.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..config.loader import LoadedSettings, load_settings
from ..di.assembly import assemble_container
from ..di.auto_configuration import discover_auto_configurations
from ..di.container import FRAMEWORK_BEANS
from ..di.definitions import Selection, bean_entries, select_beans
from ..di.scan import ScanResult, find_agent, scan_packages
from ..di.wiring import BeanCatalog
from ..errors import WiringError
from ..specs import AgentSpec
from .config_dir import config_dir_of

__all__ = ["LoadedApplication", "load_application"]


class LoadedApplication(NamedTuple):
    """What loading found: the agent, its settings (with origins), its scanned parts and its container."""

    agent: AgentSpec
    loaded: LoadedSettings
    scan: ScanResult
    container: Any
    catalog: BeanCatalog
    selection: Selection  # every bean considered, with its conditions' outcomes (`mesh beans`)


def load_application(
    app: str,
    *,
    cli: Mapping[str, Any] | None = None,
    profiles: Sequence[str] | None = None,
    config: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    report_unread: bool = False,
) -> LoadedApplication:
    """Import the module `app`, load its settings, scan its packages and check all wiring.

    Raises ConfigError or WiringError listing every problem found; with `report_unread`, settings nothing
    reads are kept in `loaded.unread` instead (`mesh config` shows them)."""
    environ = os.environ if environ is None else environ
    agent = find_agent(app)
    config_dir = config_dir_of(agent, config, environ)
    loaded = load_settings(
        code=agent.params,
        cli=cli,
        profiles=profiles,
        config_dir=config_dir,
        environ=environ,
        keep_unread=True,  # reported with the wiring problems (or kept, under report_unread)
    )
    settings = loaded.settings
    packages = settings.scan.packages or list(agent.scan) or [_package_of(agent.module)]
    exclude = [*agent.exclude, *settings.scan.exclude]
    scan = scan_packages(packages, exclude)
    module_file = getattr(sys.modules[agent.module], "__file__", None)
    package_dir = Path(module_file).resolve().parent if module_file else None
    auto, auto_problems = discover_auto_configurations(settings.auto_configuration.exclude)
    selection = select_beans(
        scan.components,
        scan.configurations,
        auto,
        settings,
        loaded=loaded,
        scan=scan,
        folders=(config_dir, package_dir),
    )
    if auto_problems:
        raise WiringError(auto_problems)
    catalog = BeanCatalog(bean_entries(selection.beans), scan.config_properties, FRAMEWORK_BEANS)
    container = assemble_container(
        loaded,
        scan,
        catalog,
        report_unread=report_unread,
        selection=selection,
        folders=(config_dir, package_dir),
        environ=environ,
        agent=agent,
    )
    return LoadedApplication(agent, loaded, scan, container, catalog, selection)


def _package_of(module: str) -> str:
    loaded = sys.modules[module]
    return module if hasattr(loaded, "__path__") else module.rpartition(".")[0] or module
