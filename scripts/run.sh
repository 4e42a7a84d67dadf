#!/usr/bin/env bash
# Runs the starter app: both of its agents and an embedded registry, then shows one cross-agent call
# (calculator.sum_of_squares calls the starter agent's `add` through the mesh) and one tool using an MCP
# server of the catalog (`jot` keeps notes with config/mcp-servers.json's `notes`), and prints the address of
# the chat page (the `ask` tool's answer streamed to the browser). Ctrl-C stops everything.
# Extra arguments go to `mesh run` (e.g. --profile dev).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"  # the runtime only (and the openai extra): no development tools
cd "$root"
# As in an activated venv: catalog servers started as `python ...` run with the project's interpreter.
export PATH="$root/.venv/bin:$PATH"
mesh="$root/.venv/bin/mesh"
"$mesh" run starter_app starter_app.calculator "$@" &
agents=$!
trap 'kill -TERM "$agents" 2>/dev/null || true; wait "$agents" 2>/dev/null || true' INT TERM
for _ in $(seq 1 60); do
  kill -0 "$agents" 2>/dev/null || break  # `mesh run` has exited: stop at once, with its exit code
  if answer=$("$mesh" call sum_of_squares '{"a": 3, "b": 4}' 2>/dev/null); then
    echo "cross-agent call: calculator.sum_of_squares(a=3, b=4) -> starter.add(9, 16) = $answer"
    notes=$("$mesh" call jot '{"text": "try the catalog"}' 2>&1) || true
    echo "catalog server through a tool: starter.jot(text=\"try the catalog\") -> notes = $notes"
    echo "try it yourself: .venv/bin/mesh list; .venv/bin/mesh call sum_of_squares '{\"a\": 5, \"b\": 12}'"
    # The starter agent's endpoint as the registry lists it (its port may come from a profile or option).
    starter=$("$mesh" list --json 2>/dev/null | "$root/.venv/bin/python" -c \
      'import json, sys; print(next(a["endpoint"] for a in json.load(sys.stdin)["agents"] if a["name"] == "starter"))' \
      2>/dev/null) || starter="http://127.0.0.1:8080"
    echo "chat page (streams the LLM tool ask; needs OPENAI_API_KEY or llm.vendors.openai): ${starter%/}/chat"
    break
  fi
  sleep 0.5
done
status=0
wait "$agents" || status=$?
exit "$status"
