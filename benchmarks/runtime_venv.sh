#!/usr/bin/env bash
# A venv with the runtime dependencies only (uv.lock, no dev group), as a user's install of the framework
# has them: .tools/runtime-venv. The dev venv carries test tools and every extra, which some libraries
# notice when importable: dependency-injector imports werkzeug (which schemathesis brings) and fastapi,
# ~8 MiB and 130 modules; the framework imports it without them, the floor server imports it plainly, so
# the floor would be inflated there. The openai extra is in: the starter app's LLM tool needs it to start.
#   benchmarks/runtime_venv.sh && MESH_BENCH_PYTHON=.tools/runtime-venv/bin/python \
#       .venv/bin/python benchmarks/startup.py --runs 10 --calls 1000
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/bootstrap.sh"
UV_PROJECT_ENVIRONMENT="$root/.tools/runtime-venv" UV_PYTHON_DOWNLOADS=never \
    "$root/.tools/bootstrap/bin/uv" sync --frozen --no-dev --extra openai --quiet --python python3 --compile-bytecode
echo ".tools/runtime-venv/bin/python"
