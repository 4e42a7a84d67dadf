"""Status sections: `@status_section` functions refreshed in the background, served at
`GET /status`."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .board import StatusBoard, StatusSection

if TYPE_CHECKING:
    from .status_marks import status_section

__all__ = ["StatusBoard", "StatusSection", "status_section"]

# `@status_section` loads its module on first use: an app that marks none is planned without it.
__getattr__, __dir__ = lazy_exports(__name__, {"status_section": ".status_marks"}, globals())
