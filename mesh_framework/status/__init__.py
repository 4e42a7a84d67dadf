"""Status sections: `@status_section` functions refreshed in the background, served at
`GET /status`."""

from .board import StatusBoard, StatusSection
from .status_marks import status_section

__all__ = ["StatusBoard", "StatusSection", "status_section"]
