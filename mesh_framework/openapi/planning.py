"""The services of `mcp.openapi`, planned while the app loads: each document read and checked, its
operations planned as tools, their names checked against each other and the app's own tools. Every
problem names the entry (`mcp.openapi[0]`), the service and where the setting comes from."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..config.loader import LoadedSettings
from ..config.settings import OpenApiServiceSettings
from ..config.sources import normalize_key
from ..security.tls import client_verify
from .document import OpenApiDocument, SpecError, read_document
from .operations import Operation, plan_operations

__all__ = ["ServicePlan", "plan_services"]

logger = logging.getLogger("mesh_framework.openapi")


@dataclass
class ServicePlan:
    """One service: its settings, document, base URL and operations (tools)."""

    index: int
    settings: OpenApiServiceSettings
    document: OpenApiDocument
    base_url: str
    operations: list[Operation] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.settings.name


def where(loaded: LoadedSettings, index: int, name: str) -> str:
    """How a problem names an entry: `mcp.openapi[0] 'petstore' (from application.yaml:3)`."""
    return f"mcp.openapi[{index}] '{name}' (from {loaded.origin_of('mcp.openapi')})"


def plan_services(
    loaded: LoadedSettings, config_dir: Path | None, taken: Iterable[tuple[str, str]] = ()
) -> tuple[list[ServicePlan], list[str]]:
    """The services' plans and every problem. `taken`: (tool name, what it is) of the app's own tools."""
    settings = loaded.settings
    base = config_dir if config_dir is not None else Path.cwd()
    plans: list[ServicePlan] = []
    problems: list[str] = []
    names: dict[str, str] = {name: what for name, what in taken}
    tls = client_verify(settings.tls)  # a function when the TLS context is made on demand
    verify = tls() if callable(tls) else tls
    for index, service in enumerate(settings.mcp.openapi):
        entry = where(loaded, index, service.name)
        problems.extend(f"{entry}: {problem}" for problem in _auth_problems(loaded, service))
        try:
            document = read_document(
                service.spec,
                base,
                timeout=settings.mcp.connect_timeout,
                verify=verify,
            )
        except SpecError as exc:
            problems.append(f"{entry}: spec {service.spec!r}: {exc}")
            continue
        base_url = service.base_url or document.base_url()
        if base_url is None:
            problems.append(
                f"{entry}: the document names no absolute server URL; set base_url "
                "(e.g. base_url: http://127.0.0.1:8000)"
            )
            continue
        planned = plan_operations(document, service.include_tags, service.exclude_tags)
        problems.extend(f"{entry}: {problem}" for problem in planned.problems)
        for skipped in planned.skipped:
            logger.warning("openapi service '%s': %s left out: %s", service.name, *skipped.split(": ", 1))
        plan = ServicePlan(index, service, document, base_url.rstrip("/"))
        for found in planned.operations:
            operation = replace(found, name=(service.prefix + found.name)[:128]) if service.prefix else found
            other = names.get(operation.name)
            if other is not None:
                problems.append(
                    f"{entry}: tool name '{operation.name}' of {operation.label} is already {other}; "
                    "set a prefix on the service (prefix: ...), or leave one out (include_tags, exclude_tags)"
                )
                continue
            names[operation.name] = f"the tool of {operation.label} of service '{service.name}'"
            plan.operations.append(operation)
        if not plan.operations and not planned.problems:
            logger.warning(
                "openapi service '%s': no operation is served (tags filtered them all out?)", service.name
            )
        plans.append(plan)
    return plans, problems


def _auth_problems(loaded: LoadedSettings, service: OpenApiServiceSettings) -> list[str]:
    auth = loaded.settings.auth
    problems = []
    client = service.auth.client if service.auth is not None else None
    if client is not None and normalize_key(client) not in auth.dependency_clients:
        known = ", ".join(sorted(auth.dependency_clients)) or "none is set"
        problems.append(f"auth.client names '{client}', which is no auth.dependency_clients entry ({known})")
    key = normalize_key(service.name)  # settings keys are normalized: `my-api` is `my_api`
    named = [s for s in ("dependency_tokens", "dependency_clients") if key in getattr(auth, s)]
    if service.auth is not None and named:
        problems.append(f"auth is set here and in auth.{named[0]}.{service.name}; keep one")
    return problems
