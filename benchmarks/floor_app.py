"""The start-up floor: what an agent's dependencies cost before the framework does any work of its own.

Two roles, both used by startup.py in the same run:

    python floor_app.py modules OUT -- ARGS...
        runs `mesh ARGS...` (`python -m mesh_framework.cli ARGS...`) in this process; on SIGUSR1 it writes
        to OUT, as JSON, every module then in `sys.modules` (startup.py sends it once the agent answered
        `tools/list`), so the floor is computed from what a started agent imported, not a hand list.

    python floor_app.py serve MODULES ANSWER --host H --port N
        imports every third-party module named in MODULES (the `modules` role's file: the modules of
        neither the standard library nor the framework nor the app), then serves on stock uvicorn a plain
        ASGI app answering every POST with the bytes of ANSWER (the agent's own `tools/list` answer). Its
        start → first `tools/list` and its RSS are what no agent on those libraries can go below; the
        agent above it is the framework's own cost.
"""

from __future__ import annotations

import argparse
import importlib
import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

OWN = ("mesh_framework", "starter_app", "bench_agent", "__main__", "__mp_main__")


def third_party(modules: list[str]) -> list[str]:
    """The modules of `modules` that belong to neither the standard library nor the framework nor the
    app, parents first."""
    stdlib = sys.stdlib_module_names
    kept = [
        name
        for name in modules
        if name.split(".")[0] not in stdlib and not name.startswith("_") and name.split(".")[0] not in OWN
    ]
    return sorted(kept, key=lambda name: (name.count("."), name))


def record_modules(out: Path, argv: list[str]) -> int:
    def dump(_signum: int, _frame: FrameType | None) -> None:
        out.write_text(json.dumps(sorted(sys.modules)))

    signal.signal(signal.SIGUSR1, dump)
    from mesh_framework.cli.entry import main

    sys.argv = ["mesh", *argv]
    return int(main() or 0)


def serve(modules_file: Path, answer_file: Path, host: str, port: int) -> int:
    failed = []
    for name in third_party(json.loads(modules_file.read_text())):
        try:
            importlib.import_module(name)
        except Exception:  # a module that imports only as a part of another's start: the others count
            failed.append(name)
    if failed:
        print(
            f"floor: {len(failed)} module(s) did not import alone: {', '.join(failed[:10])}", file=sys.stderr
        )

    import uvicorn

    answer = answer_file.read_bytes()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    return 0


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "modules":
        rest = sys.argv[3:]
        return record_modules(Path(sys.argv[2]), rest[1:] if rest[:1] == ["--"] else rest)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("role", choices=["serve"])
    parser.add_argument("modules", type=Path)
    parser.add_argument("answer", type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    return serve(args.modules, args.answer, args.host, args.port)


if __name__ == "__main__":
    sys.exit(main())
