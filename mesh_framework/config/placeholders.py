"""`${VAR}` placeholders, resolved from the environment: one implementation for settings files and catalogs.

Both spellings take `${VAR}` (the variable's value; an empty value counts as set), `${VAR:-default}` (the
default when the variable is unset or empty), `${env:VAR}` (VS Code's spelling of `${VAR}`) and `$${` for a
literal `${`; any other `$` is kept as written. Settings files also take Spring Boot's `${VAR:default}` (the
default when the variable is unset). `${input:ID}` (a VS Code prompt) cannot be resolved outside VS Code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .._frozen import frozen

__all__ = ["CATALOG", "SETTINGS", "PlaceholderError", "Syntax", "Use", "expand", "resolve"]

_TOKEN = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")
_BODY = re.compile(r"(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:)(.*))?", re.S)


@frozen(slots=False)
class Syntax:
    """What a kind of file accepts beyond the common placeholders."""

    colon_default: bool
    """`${VAR:default}` (Spring Boot): the default when unset. Nested placeholders in a default are refused
    (Spring Boot would resolve them; reading `${A:${B}}` up to the first `}` would silently misread it)."""
    default_hint: str
    """How an error message shows a default, for this syntax."""


SETTINGS = Syntax(colon_default=True, default_hint="${{{name}:default}}")
CATALOG = Syntax(colon_default=False, default_hint="${{{name}:-default}}")


@frozen(slots=False)
class Use:
    """One placeholder resolved: the variable it names, and whether its default stood in (and why)."""

    variable: str
    default: str | None = None  # None: the variable's value; else "unset" or "empty"

    def describe(self) -> str:
        if self.default is None:
            return f"environment variable {self.variable}"
        return f"default ({self.variable} {'not set' if self.default == 'unset' else 'empty'})"


class PlaceholderError(ValueError):
    """One or more placeholders of a value cannot be resolved; `problems` says which and why."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def resolve(text: str, environ: Mapping[str, str], syntax: Syntax) -> tuple[str, list[Use]]:
    """`text` with every placeholder replaced, and the variables used.

    Raises PlaceholderError listing each placeholder that cannot be resolved; problems quote only the
    placeholder, never the rest of the value (it may be a secret)."""
    if "${" not in text:
        return text, []
    problems: list[str] = []
    uses: list[Use] = []

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
        if parsed is None or (parsed.group(2) == ":" and not syntax.colon_default):
            problems.append(
                f"{token} is not a valid placeholder; write ${{NAME}} or "
                + syntax.default_hint.format(name="NAME")
            )
            return token
        name, separator, default = parsed.groups()
        if default is not None and syntax.colon_default and "${" in default:
            problems.append(f"{token}: a default cannot hold another placeholder; write a plain value")
            return token
        value = environ.get(name)
        if separator == ":-" and not value:
            uses.append(Use(name, "unset" if value is None else "empty"))
            return default
        if separator == ":" and value is None:
            uses.append(Use(name, "unset"))
            return default
        if value is None:
            hint = syntax.default_hint.format(name=name)
            problems.append(f"{token}: the variable {name} is not defined; set it or write {hint}")
            return token
        uses.append(Use(name))
        return value

    result = _TOKEN.sub(replace, text)
    if problems:
        raise PlaceholderError(problems)
    return result, uses


def expand(text: str, environ: Mapping[str, str], syntax: Syntax = CATALOG) -> str:
    """`text` with every placeholder replaced; raises PlaceholderError listing each unresolved one."""
    return resolve(text, environ, syntax)[0]
