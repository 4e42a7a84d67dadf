"""The console on the registry: what agents push (board.py) and the routes the page reads (routes.py)."""

from .board import ConsoleBoard, PushError
from .routes import console_routes, is_framework_tool

__all__ = ["ConsoleBoard", "PushError", "console_routes", "is_framework_tool"]
