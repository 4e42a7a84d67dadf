#!/usr/bin/env bash
# Install the real MCP Mesh system (used by the interop tests in tests/interop/) into
# git-ignored folders under <repo>/.tools/:
#
#   .tools/mcpmesh          npm @mcpmesh/cli-linux-x64@3.7.1: bin/mcp-mesh-registry, bin/meshctl
#   .tools/mcp-mesh-venv    its own venv with PyPI mcp-mesh==3.8.0 (it pins mcp 1.x, which
#                           clashes with this project's mcp 2.x, hence a separate venv); every
#                           other package pinned by tests/interop/mcp-mesh-constraints.txt (the
#                           set verified end to end: newer starlette/sse-starlette may break it)
#
# Idempotent and fast: each folder gets a stamp file recording what was installed; when the
# stamp matches and the expected entry points exist, neither npm nor pip is run.
#
# Usage: scripts/install-mcp-mesh.sh [--force]
#   --force  (or FORCE=1) reinstall everything.
#
# Prints one line per tool: "<name> <version> (<cached|installed>) <path>".
# Exits non-zero with a message on failure.
set -euo pipefail

INSTALLER=install-mcp-mesh
# shellcheck source=install-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/install-lib.sh"
parse_install_args "$@"

CLI_PKG="@mcpmesh/cli-linux-x64"
CLI_VERSION="3.7.1"
CLI_SPEC="${CLI_PKG}@${CLI_VERSION}"
PY_PKG="mcp-mesh"
PY_VERSION="3.8.0"
PY_SPEC="${PY_PKG}==${PY_VERSION}"
PYTHON="${PYTHON:-python3}"
CONSTRAINTS="${REPO_ROOT}/tests/interop/mcp-mesh-constraints.txt"

# --- npm: registry + meshctl binaries ---------------------------------------------------------
CLI_DIR="${TOOLS_DIR}/mcpmesh"
CLI_BIN_REL="node_modules/${CLI_PKG}/bin"
REGISTRY_BIN="${CLI_DIR}/${CLI_BIN_REL}/mcp-mesh-registry"
MESHCTL_BIN="${CLI_DIR}/${CLI_BIN_REL}/meshctl"

if stamp_ok "${CLI_DIR}" "${CLI_SPEC}" "${CLI_BIN_REL}/mcp-mesh-registry" "${CLI_BIN_REL}/meshctl"; then
    cli_state="cached"
else
    npm_install "${CLI_DIR}" "${CLI_SPEC}"
    for bin in "${REGISTRY_BIN}" "${MESHCTL_BIN}"; do
        [[ -f "${bin}" ]] || die "${CLI_SPEC} installed but ${bin} is missing"
    done
    cli_state="installed"
fi
# npm does not always keep the exec bit on files it does not link as "bin": make sure.
chmod +x -- "${REGISTRY_BIN}" "${MESHCTL_BIN}" || die "cannot chmod +x the binaries in ${CLI_DIR}/${CLI_BIN_REL}"
if [[ "${cli_state}" == "installed" ]]; then
    "${MESHCTL_BIN}" --help >/dev/null 2>&1 || die "${MESHCTL_BIN} --help failed (does the binary run here?)"
    printf '%s\n' "${CLI_SPEC}" >"${CLI_DIR}/${STAMP_NAME}"
fi
printf '%-18s %s (%s) %s\n' mcp-mesh-registry "${CLI_VERSION}" "${cli_state}" "${REGISTRY_BIN}"
printf '%-18s %s (%s) %s\n' meshctl "${CLI_VERSION}" "${cli_state}" "${MESHCTL_BIN}"

# --- PyPI: mcp-mesh in its own venv -------------------------------------------------------------
VENV_DIR="${TOOLS_DIR}/mcp-mesh-venv"
VENV_PY="${VENV_DIR}/bin/python"
[[ -f "${CONSTRAINTS}" ]] || die "constraints file ${CONSTRAINTS} is missing"
PY_STAMP="${PY_SPEC} $("${PYTHON}" -c 'import sys; print("py%d.%d" % sys.version_info[:2])' 2>/dev/null || echo unknown) $(cksum <"${CONSTRAINTS}" | cut -d' ' -f1)"

if stamp_ok "${VENV_DIR}" "${PY_STAMP}" bin/python; then
    py_state="cached"
else
    command -v "${PYTHON}" >/dev/null 2>&1 || die "${PYTHON} not found on PATH; it is needed for the mcp-mesh venv"
    clean_dir "${VENV_DIR}"
    "${PYTHON}" -m venv "${VENV_DIR}" || die "'${PYTHON} -m venv ${VENV_DIR}' failed"
    log="${TOOLS_DIR}/.pip-mcp-mesh.log"
    # Our constraints pin the verified set. uv (which scripts/bootstrap.sh installs) installs it several
    # times faster than pip, from its cache; without uv, pip does, and a machine-wide pip config
    # (find-links, extra index, a global constraint file capping unrelated packages) applies on top.
    # boto3: mcp-mesh's S3 media store (MCP_MESH_MEDIA_STORAGE=s3) imports it; the media interop tests use it.
    UV_BIN="${TOOLS_DIR}/bootstrap/bin/uv"
    if [[ -x "${UV_BIN}" ]]; then
        install=("${UV_BIN}" pip install --quiet --python "${VENV_PY}" --compile-bytecode)
    else
        install=("${VENV_PY}" -m pip install --quiet --disable-pip-version-check)
    fi
    if ! "${install[@]}" -c "${CONSTRAINTS}" "${PY_SPEC}" boto3 >"${log}" 2>&1; then
        cat "${log}" >&2
        die "pip install ${PY_SPEC} into ${VENV_DIR} failed (log: ${log})"
    fi
    rm -f -- "${log}"
    "${VENV_PY}" -c 'import mesh' >/dev/null 2>&1 || die "${PY_SPEC} installed but 'import mesh' fails in ${VENV_DIR}"
    printf '%s\n' "${PY_STAMP}" >"${VENV_DIR}/${STAMP_NAME}"
    py_state="installed"
fi
py_version="$(sed -n 's/^Version: //p' "${VENV_DIR}"/lib/python*/site-packages/mcp_mesh-*.dist-info/METADATA 2>/dev/null | head -n 1)"
[[ "${py_version}" == "${PY_VERSION}" ]] || die "${VENV_DIR}: expected ${PY_PKG} ${PY_VERSION}, found '${py_version}' (try --force)"
printf '%-18s %s (%s) %s\n' mcp-mesh "${py_version}" "${py_state}" "${VENV_PY}"
