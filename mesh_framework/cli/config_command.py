"""`mesh config APP`: every resolved setting with its origin; `--explain KEY`: every layer's value for one.

Secrets are masked (`******`) in every form: table, JSON and explanation. Settings nothing reads (which stop
`mesh run`) are listed on stderr, and under `problems` in JSON, rather than stopping the command.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_OK, app_name, cli_settings, json_option, profiles
from .output import emit_json, is_terminal, plain_table, rich_table
from .settings_table import settings_rows

__all__ = ["register"]


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
