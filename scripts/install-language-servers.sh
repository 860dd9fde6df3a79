#!/usr/bin/env bash
# Installs the language servers the semantic layer starts headlessly. Idempotent: a server that is
# already installed at the pinned version is left alone. Run as the user that runs the engine
# (CI runs it as root); .NET global tools land in ~/.dotnet/tools.
#
#   C#     csharp-ls (a Roslyn language server, a .NET global tool)  -> ~/.dotnet/tools/csharp-ls
#   TS/JS  typescript-language-server + typescript are npm dependencies -> node_modules/.bin
set -euo pipefail

CSHARP_LS_VERSION="${CSHARP_LS_VERSION:-0.28.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${HOME}/.dotnet/tools"

if ! command -v dotnet >/dev/null 2>&1; then
  echo "install-language-servers: dotnet not found; C# semantic answers will be heuristic" >&2
else
  installed="$(dotnet tool list --global 2>/dev/null | awk 'tolower($1)=="csharp-ls" {print $2}')"
  if [ "${installed}" = "${CSHARP_LS_VERSION}" ]; then
    echo "install-language-servers: csharp-ls ${installed} already installed"
  elif [ -n "${installed}" ]; then
    dotnet tool update --global csharp-ls --version "${CSHARP_LS_VERSION}"
  else
    dotnet tool install --global csharp-ls --version "${CSHARP_LS_VERSION}"
  fi
  "${tools}/csharp-ls" --version
fi

if [ -x "${here}/node_modules/.bin/typescript-language-server" ]; then
  echo "install-language-servers: typescript-language-server $("${here}/node_modules/.bin/typescript-language-server" --version)"
else
  echo "install-language-servers: node_modules/.bin/typescript-language-server missing; run npm ci first" >&2
  exit 1
fi
