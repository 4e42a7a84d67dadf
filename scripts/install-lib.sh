# Shared by the installers (sourced, not run): options, stamps and npm installs under <repo>/.tools/.
# The caller sets INSTALLER (its name, for messages) before sourcing.

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[1]}")" && pwd)"
REPO_ROOT="$(cd -- "${SCRIPT_DIR}/.." && pwd)"
TOOLS_DIR="${REPO_ROOT}/.tools"
STAMP_NAME=".install-stamp"
FORCE="${FORCE:-0}"

die() {
    echo "${INSTALLER}: ERROR: $*" >&2
    exit 1
}

# parse_install_args "$@": --force, --help (prints the caller's header comment).
parse_install_args() {
    local arg
    for arg in "$@"; do
        case "${arg}" in
            --force) FORCE=1 ;;
            -h|--help) sed -n '2,18p' "${BASH_SOURCE[1]}" | sed -n '/^#/s/^# \{0,1\}//p'; exit 0 ;;
            *) die "unknown argument: ${arg} (try --help)" ;;
        esac
    done
}

# stamp_ok <dir> <expected stamp text> <entry>...: true when the stamp matches and all entries exist.
stamp_ok() {
    local dir="$1" want="$2"
    shift 2
    [[ "${FORCE}" != "1" && -f "${dir}/${STAMP_NAME}" ]] || return 1
    [[ "$(cat "${dir}/${STAMP_NAME}")" == "${want}" ]] || return 1
    local entry
    for entry in "$@"; do
        [[ -e "${dir}/${entry}" ]] || return 1
    done
}

# clean_dir <dir>: remove a folder under .tools/ (refuses anything else).
clean_dir() {
    local dir="$1"
    [[ "${dir}" == "${TOOLS_DIR}/"?* ]] || die "refusing to clean unexpected path ${dir}"
    rm -rf -- "${dir}"
}

# npm_install <dir> <spec>...: a clean npm install of the specs into <dir>, its log shown only on failure.
# npm installs started ahead by `npm_install_start`, by folder: `npm_install` of that folder waits for it.
declare -A NPM_STARTED=()

# npm_install_start <dir> <spec>...: `npm_install` in the background, now. The folders are independent and
# an install mostly waits on its downloads and unpacking, so several run side by side.
npm_install_start() {
    ( npm_install "$@" ) &
    NPM_STARTED["$1"]=$!
}

npm_install() {
    local dir="$1"
    shift
    local spec="$*"
    if [[ -n "${NPM_STARTED[${dir}]:-}" ]]; then  # started ahead: its outcome (an error was printed)
        local pid="${NPM_STARTED[${dir}]}"
        unset "NPM_STARTED[${dir}]"
        wait "${pid}" || exit 1
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found on PATH; it is needed to install ${spec}"
    clean_dir "${dir}"
    mkdir -p -- "${dir}"
    local log="${TOOLS_DIR}/.npm-$(basename -- "${dir}").log"
    if ! npm install --prefix "${dir}" --no-audit --no-fund --loglevel=error "$@" >"${log}" 2>&1; then
        cat "${log}" >&2
        die "npm install ${spec} into ${dir} failed (log: ${log})"
    fi
    rm -f -- "${log}"
}

mkdir -p -- "${TOOLS_DIR}"
