"""`${VAR}` placeholders in catalog values, resolved when the catalog is loaded.

`${VAR}` is the variable's value (an empty value counts as defined), `${VAR:-default}` the default when
the variable is unset or empty, `${env:VAR}` the same as `${VAR}` (VS Code's spelling), and `$${` a literal
`${`. Any other `$` is kept as written. `${input:ID}` (a VS Code prompt) cannot be resolved outside VS Code.
The implementation is the settings files' one (`config.placeholders`), in its catalog syntax.
"""

from __future__ import annotations

from ..config.placeholders import PlaceholderError, expand

__all__ = ["PlaceholderError", "expand"]
