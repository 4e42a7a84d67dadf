"""Status sections as an auto-configuration: the `@status_section` functions and methods of the scan,
checked while the app loads, refreshed in the background while it serves and read at `status.path`."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import BeanLookup, HttpSurface, LoadPlan, ScannedApp, ServingLifecycle
from .board import StatusBoard
from .discovery import StatusPlan, build_status_board, plan_status_sections
from .route import status_route

__all__ = ["StatusAutoConfiguration", "StatusSections"]


class StatusSections(LoadPlan):
    """The status sections found in the scan, and the problems with them."""

    def __init__(self, plans: list[StatusPlan], problems: list[str]) -> None:
        self.plans = plans
        self.problems = problems


class _Refresh(ServingLifecycle):
    """The board's background refresh runs while the agent serves."""

    def __init__(self, board: StatusBoard) -> None:
        self.board = board

    async def start(self) -> None:
        self.board.start()

    async def stop(self) -> None:
        await self.board.aclose()


@configuration
class StatusAutoConfiguration:
    @bean
    def status_sections(self, app: ScannedApp) -> StatusSections:
        return StatusSections(*plan_status_sections(app.scan.modules, app.owners()))

    @bean
    def status_board(self, sections: StatusSections, app: ScannedApp, lookup: BeanLookup) -> StatusBoard:
        return build_status_board(sections.plans, lookup, app.settings.agent.name)

    @bean(order=-100)
    def status_surface(self, board: StatusBoard, settings: MeshSettings) -> HttpSurface:
        return HttpSurface([status_route(board, settings.status.path)], order=-100)

    @bean
    def status_refresh(self, board: StatusBoard) -> ServingLifecycle:
        return _Refresh(board)
