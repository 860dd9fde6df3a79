#!/usr/bin/env bash
# Installs code-server (idempotent, cached outside the repository), builds the extension and its
# test bundle, and runs the extension test suite in code-server's real VS Code.
#   bash scripts/run-extension-tests.sh [runInCodeServer.ts options, e.g. --grep activation]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-code-server.sh >/dev/null
node scripts/build.mjs
node scripts/build-extension-tests.mjs
exec npx tsx test/extension/runInCodeServer.ts "$@"
