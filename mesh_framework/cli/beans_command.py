"""`mesh beans APP`: every bean the app defines, with its type, scope and origin (the scan, a configuration
class, an auto-configuration and its package), and for each condition whether it matched and why, as Spring
Boot's conditions report; the beans a condition left out are listed too. The framework's own features are
auto-configurations too: their beans are counted, and listed with `--all`. `--json` for programs."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, app_name, cli_settings, json_option, profiles
from .output import echo, emit_json, plain_table

__all__ = ["bean_report", "register"]


def register(commands: Any, app_options: Any) -> None:
    parser = commands.add_parser(
        "beans",
        help="every bean of an app: type, scope, origin, and why each condition matched or not",
        description=__doc__,
    )
    app_options(parser, many=False)
    json_option(parser)
    parser.add_argument(
        "--all",
        action="store_true",
        dest="framework",
        help="list the framework's own auto-configurations' beans too",
    )
    parser.set_defaults(handler=_beans)


def _origin(definition: Any) -> str:
    config = definition.configuration
    if config is None:
        return "scan"
    if config.origin == "auto-configuration":
        return f"auto-configuration {config.auto_name} ({config.cls.__qualname__}, package {config.package})"
    return f"configuration {config.cls.__module__}.{config.cls.__qualname__}"


FRAMEWORK_PACKAGE = "mesh-framework"  # the distribution of the framework's own auto-configurations


def _framework_own(definition: Any) -> bool:
    config = definition.configuration
    return (
        config is not None and config.origin == "auto-configuration" and config.package == FRAMEWORK_PACKAGE
    )


def bean_report(app: Any, *, framework: bool = True) -> dict[str, Any]:
    """The report as data: every candidate bean, defined or not, with its conditions' outcomes; without
    `framework`, the framework's own auto-configurations' beans are only counted (`framework_beans`)."""
    beans = []
    hidden = 0
    for definition in app.selection.candidates:
        if not framework and _framework_own(definition):
            hidden += definition.defined
            continue
        beans.append(
            {
                "name": definition.name,
                "type": f"{definition.type.__module__}.{definition.type.__qualname__}",
                "scope": definition.scope,
                "origin": _origin(definition),
                "defined": definition.defined,
                "location": definition.location,
                "conditions": [
                    {"condition": o.condition, "matched": o.matched, "reason": o.reason}
                    for o in definition.outcomes
                ],
            }
        )
    report = {"app": app.agent.module, "profiles": list(app.settings.profiles), "beans": beans}
    if not framework:
        report["framework_beans"] = hidden
    return report


def _beans(args: argparse.Namespace) -> int:
    from ..app import MeshApplication

    app = MeshApplication.load(
        app_name(args.app, "beans"), cli=cli_settings(args), profiles=profiles(args), config=args.config
    )
    report = bean_report(app, framework=args.framework)
    if args.json:
        emit_json(report)
        return EXIT_OK
    defined = [b for b in report["beans"] if b["defined"]]
    plain_table(
        [["NAME", "TYPE", "SCOPE", "ORIGIN"]]
        + [[b["name"], b["type"], b["scope"], b["origin"]] for b in defined],
        caps=[30, 60, 9],
    )
    conditioned = [b for b in report["beans"] if b["conditions"]]
    for title, matched in (("Positive matches", True), ("Negative matches", False)):
        group = [b for b in conditioned if b["defined"] is matched]
        if not group:
            continue
        echo(f"\n{title}:")
        for entry in group:
            echo(f"  {entry['name']} ({entry['location']}):")
            for outcome in entry["conditions"]:
                verdict = "matched" if outcome["matched"] else "did not match"
                echo(f"    {outcome['condition']} {verdict}: {outcome['reason']}")
    if report.get("framework_beans"):
        count = report["framework_beans"]
        echo(f"\n{count} bean(s) of the framework's own features (`mesh beans --all` lists them)")
    return EXIT_OK
