#!/usr/bin/env bash
# Installs the inspector page's locked three.js (npm ci) when node_modules
# is missing or was installed from another package-lock.json, so a clean
# clone needs nothing done by hand; otherwise does nothing. ikctl inspect
# serves node_modules/three from here; nothing is fetched at run time.
#   client/inspector/install.sh
set -euo pipefail
cd "$(dirname "$0")"
command -v node >/dev/null || { echo "node is missing (scripts/setup.sh --test)" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is missing (scripts/setup.sh --test)" >&2; exit 1; }
# The lock's digest, recorded once npm ci succeeded.
stamp=node_modules/.ikd-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -d node_modules || ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "client/inspector: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$want" >"$stamp"
fi
