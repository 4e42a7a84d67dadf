#!/usr/bin/env bash
# Runs the starter app (extra arguments go to `mesh run`, e.g. --profile dev or --port 9000).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
cd "$root"
exec "$root/.venv/bin/mesh" run starter_app "$@"
