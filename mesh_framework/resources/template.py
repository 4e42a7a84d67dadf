"""URI templates of resources (RFC 6570 level 1 and reserved expansion): `logs://{service}/{date}`.

`{name}` matches one path segment (no `/`), `{+name}` matches the rest including slashes. Values are
percent-decoded.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["UriTemplate"]

_EXPRESSION = re.compile(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}")


class UriTemplate:
    """A parsed URI template: its variables, in order, and a matcher."""

    __slots__ = ("pattern", "template", "variables")

    def __init__(self, template: str) -> None:
        self.template = template
        parts: list[str] = []
        variables: list[str] = []
        position = 0
        for match in _EXPRESSION.finditer(template):
            parts.append(re.escape(template[position : match.start()]))
            reserved, name = match.groups()
            if name in variables:
                raise ValueError(f"URI template {template!r} uses {{{name}}} twice")
            variables.append(name)
            parts.append(f"(?P<{name}>.+?)" if reserved else f"(?P<{name}>[^/?#]+)")
            position = match.end()
        rest = template[position:]
        leftover = _EXPRESSION.sub("", template)
        if "{" in leftover or "}" in leftover:
            raise ValueError(
                f"URI template {template!r} has an expression this server does not support; "
                "use {name} or {+name}"
            )
        parts.append(re.escape(rest))
        self.variables = tuple(variables)
        self.pattern = re.compile("".join(parts) + r"\Z")

    @staticmethod
    def is_template(uri: str) -> bool:
        return "{" in uri

    def match(self, uri: str) -> dict[str, str] | None:
        found = self.pattern.match(uri)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}

    def __repr__(self) -> str:
        return f"UriTemplate({self.template!r})"
