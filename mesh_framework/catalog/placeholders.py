"""`${VAR}` placeholders in catalog values, resolved when the catalog is loaded.

`${VAR}` is the variable's value (an empty value counts as defined), `${VAR:-default}` the default when
the variable is unset or empty, `${env:VAR}` the same as `${VAR}` (VS Code's spelling), and `$${` a literal
`${`. Any other `$` is kept as written. `${input:ID}` (a VS Code prompt) cannot be resolved outside VS Code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PlaceholderError", "expand"]

_TOKEN = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")
_BODY = re.compile(r"(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", re.S)


class PlaceholderError(ValueError):
    """One or more placeholders of a value cannot be resolved; `problems` says which and why."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def expand(text: str, environ: Mapping[str, str]) -> str:
    """`text` with every placeholder replaced; raises PlaceholderError listing each unresolved one."""
    if "${" not in text:
        return text
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        token, body = match.group(0), match.group(1)
        if token == "$${":
            return "${"
        if body is None:
            problems.append("'${' is not closed; write ${NAME}, or $${ for a literal ${")
            return token
        if body.startswith("input:"):
            problems.append(
                f"{token} is a VS Code input (VS Code prompts for it); use ${{VAR}} with an environment "
                "variable instead"
            )
            return token
        parsed = _BODY.fullmatch(body)
        if parsed is None:
            problems.append(f"{token} is not a valid placeholder; write ${{NAME}} or ${{NAME:-default}}")
            return token
        name, default = parsed.group(1), parsed.group(2)
        if default is not None:
            return environ.get(name) or default
        if name not in environ:
            problems.append(
                f"{token}: the variable {name} is not defined; set it or write ${{{name}:-default}}"
            )
            return token
        return environ[name]

    result = _TOKEN.sub(replace, text)
    if problems:
        raise PlaceholderError(problems)
    return result
