#!/usr/bin/env bash
# The extension's CI part: installs code-server (idempotent, cached outside the repository),
# builds the extension and its tests, runs the graph page alone in headless Chromium, runs the
# extension test suite in code-server's real VS Code from the source tree (plus its Restricted
# Mode part in an untrusted window, its C# part on a multi-project solution, C# through the editor
# with a csharp-ls stand-in for C# Dev Kit on the restored Harbor fixture, the project graph on
# a generated 3,000-project workspace), then packages
# the .vsix and runs the main suite against the installed package.
#   bash scripts/run-extension-tests.sh [runInCodeServer.ts options, e.g. --grep activation]
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/install-code-server.sh >/dev/null
node scripts/build.mjs
node scripts/build-extension-tests.mjs
npx mocha --no-config --require tsx/cjs --extension ts --timeout 60000 'test/extension/page/**/*.test.ts'
npx tsx test/extension/runInCodeServer.ts "$@"
npx tsx test/extension/runInCodeServer.ts --suite untrusted --artifacts test/.tmp/extension-untrusted
npx tsx test/extension/runInCodeServer.ts --suite csharp --artifacts test/.tmp/extension-csharp
npx tsx test/extension/runInCodeServer.ts --suite csharp-editor --artifacts test/.tmp/extension-csharp-editor
npx tsx test/extension/runInCodeServer.ts --suite graph --artifacts test/.tmp/extension-graph
node scripts/package-extension.mjs >/dev/null
vsix=$(ls -t sextant-*.vsix | head -1)
npx tsx test/extension/runInCodeServer.ts --vsix "$vsix" --artifacts test/.tmp/extension-vsix "$@"
echo "extension tests finished in $(( $(date +%s) - start )) s"
