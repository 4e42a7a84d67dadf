"""The OpenAPI tools' beans (gated by openapi/auto_configuration.py): the services planned while the app
loads (documents read, problems reported with the others, a missing `openapi` extra among them); one
pooled HTTP client for their calls, closed by the container at stop; the tools added to the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx2

from ..config.settings import MeshSettings
from ..config.sources import normalize_key
from ..di.configuration import bean, configuration
from ..errors import ConfigError
from ..extension import LoadPlan, ScannedApp, ToolSource
from ..mesh.http_pool import build_http_client
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..security.tls import client_verify
from ..tools.wrapper_registry import MeshToolWrapperRegistry

if TYPE_CHECKING:
    from .planning import ServicePlan

__all__ = ["EXTRA_MODULES", "OpenApiBeans", "OpenApiHttp", "OpenApiServices"]

# What the `openapi` extra installs: a service listed without it is a start-up problem saying so.
EXTRA_MODULES = frozenset({"openapi_pydantic", "jsonschema", "referencing"})


class OpenApiServices(LoadPlan):
    """The services of `mcp.openapi` with their operations, or the problems with them."""

    config_problems = True

    def __init__(self, app: ScannedApp) -> None:
        self.plans: list[ServicePlan] = []
        try:
            from .planning import plan_services
        except ModuleNotFoundError as exc:
            missing = (exc.name or "").partition(".")[0]
            if missing not in EXTRA_MODULES:
                raise
            origin = app.loaded.origin_of("mcp.openapi")
            self.problems = [
                f"mcp.openapi (from {origin}) needs the openapi extra ({missing} is not installed): "
                "pip install 'mesh-framework[openapi]'"
            ]
            return
        taken = [(plan.name, f"tool '{plan.key}' of the app") for plan in app.tool_plans]
        self.plans, self.problems = plan_services(app.loaded, app.config_dir, taken)


class OpenApiHttp:
    """The services' one pooled HTTP client (the agent's TLS settings), made at the first call."""

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings
        self._client: httpx2.AsyncClient | None = None

    def client(self) -> httpx2.AsyncClient:
        if self._client is None:
            self._client = build_http_client(
                keepalive_expiry=self.settings.client.keepalive_expiry,
                verify=client_verify(self.settings.tls),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class _OpenApiTools(ToolSource):
    def __init__(
        self,
        services: OpenApiServices,
        http: OpenApiHttp,
        factory: McpMeshToolProxyFactory,
        settings: MeshSettings,
    ) -> None:
        self.services = services
        self.http = http
        self.factory = factory
        self.settings = settings

    def add_tools(self, registry: MeshToolWrapperRegistry) -> None:
        from .tool import OpenApiTool

        for plan in self.services.plans:
            target = self._target(plan)
            for operation in plan.operations:
                try:
                    registry.add(OpenApiTool(operation, target))
                except ValueError as exc:  # a tool another source added under the same name
                    raise ConfigError(
                        [f"mcp.openapi[{plan.index}] '{plan.name}': {exc}; set a prefix on the service"]
                    ) from None

    def _target(self, plan: ServicePlan) -> Any:
        from .tool import ServiceTarget

        auth = plan.settings.auth
        headers: dict[str, str] = {}
        flow = None
        if auth is not None and auth.bearer is not None:
            headers["authorization"] = "Bearer " + auth.bearer.get_secret_value()
        elif auth is not None and auth.header is not None and auth.value is not None:
            headers[auth.header] = auth.value.get_secret_value()
        else:  # auth.client, or what auth.dependency_tokens / dependency_clients name for the service
            named = auth.client if auth is not None and auth.client is not None else plan.name
            # settings keys are normalized (`pets-client` is `pets_client`)
            credential = self.factory.credentials.for_named(normalize_key(named))
            flow = credential.auth() if credential is not None else None
        return ServiceTarget(
            service=plan.name,
            base_url=plan.base_url,
            client=self.http.client,
            timeout=plan.settings.timeout or self.settings.tools.timeout,
            headers=headers,
            auth=flow,
        )


@configuration
class OpenApiBeans:
    @bean
    def openapi_services(self, app: ScannedApp) -> OpenApiServices:
        return OpenApiServices(app)

    @bean
    def openapi_http(self, settings: MeshSettings) -> OpenApiHttp:
        return OpenApiHttp(settings)

    @bean
    def openapi_tools(
        self,
        services: OpenApiServices,
        http: OpenApiHttp,
        factory: McpMeshToolProxyFactory,
        settings: MeshSettings,
    ) -> ToolSource:
        return _OpenApiTools(services, http, factory, settings)
