"""`mesh config APP`: every resolved setting with its origin; `--explain KEY`: every layer's value for one.

Secrets are masked (`******`) in every form: table, JSON and explanation. Settings nothing reads (which stop
`mesh run`) are listed on stderr, and under `problems` in JSON, rather than stopping the command.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NamedTuple

from .common import EXIT_OK, app_name, cli_settings, json_option, profiles
from .output import emit_json, is_terminal, plain_table, rich_table

__all__ = ["Row", "register", "settings_rows"]


class Row(NamedTuple):
    """One resolved setting: dotted key, value as printed (masked), origin, and the value as JSON."""

    key: str
    shown: str
    origin: str
    value: Any


def register(commands: Any, app_options: Any) -> None:
    config = commands.add_parser("config", help="print every resolved setting with its origin")
    app_options(config, many=False)
    config.add_argument(
        "--explain",
        metavar="KEY",
        help="every layer's value for KEY (e.g. server.port) and which one won",
    )
    json_option(config)
    config.set_defaults(handler=_config)


def settings_rows(app: Any) -> list[Row]:
    """The rows `mesh config` prints: framework settings, then each `@config_properties` section (with
    its defaults) in place of its raw data."""
    from ..config.loader import section_rows
    from ..config.masking import masked
    from ..config.settings import MeshSettings
    from ..config.sources import iter_leaves

    prefixes = [spec.prefix + "." for spec in app.scan.config_properties]
    values = dict(iter_leaves(app.loaded.settings.model_dump(mode="json")))
    rows = [
        Row(key, shown, origin, masked(key, values.get(key), MeshSettings))
        for key, shown, origin in app.loaded.table()
        if not any(key.startswith(p) for p in prefixes)
    ]
    for spec in app.scan.config_properties:
        section = app.section(spec.model)
        typed = dict(iter_leaves(section.model_dump(mode="json"), spec.prefix + "."))
        for key, shown, origin in section_rows(app.loaded, spec.prefix, section):
            rows.append(Row(key, shown, origin, masked(key, typed.get(key), spec.model, spec.prefix + ".")))
    return rows


def _config(args: argparse.Namespace) -> int:
    from ..app import MeshApplication

    cli = cli_settings(args)
    app = MeshApplication.load(
        app_name(args.app, "config"),
        cli=cli,
        profiles=profiles(args),
        config=args.config,
        report_unread=True,
    )
    for problem in app.loaded.unread:
        sys.stderr.write(f"mesh config: {problem} (mesh run stops on this)\n")
    if args.explain is not None:
        from .explain import explain, show_explanation

        explanation = explain(app, args.explain, cli=cli, profiles_given=profiles(args))
        if args.json:
            emit_json(explanation)
        else:
            show_explanation(explanation)
        return EXIT_OK
    rows = settings_rows(app)
    if args.json:
        emit_json(
            {
                "app": app.agent.module,
                "profiles": app.settings.profiles,
                "settings": {row.key: {"value": row.value, "origin": row.origin} for row in rows},
                "problems": app.loaded.unread,
            }
        )
        return EXIT_OK
    if is_terminal():
        rich_table(
            ["KEY", "VALUE", "ORIGIN"],
            [[row.key, row.shown, row.origin] for row in rows],
            styles=["bold", "cyan", "dim"],
            wrap=[False, True, True],
        )
        return EXIT_OK
    width = max(len(row.key) for row in rows)
    plain_table([[row.key, row.shown, row.origin] for row in rows], caps=[width, 40])
    return EXIT_OK
