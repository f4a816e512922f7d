#!/usr/bin/env bash
# Installs the locked npm dependencies of the package in DIR (npm ci) when
# its node_modules is missing or was installed from another
# package-lock.json, so a clean clone needs nothing done by hand; otherwise
# does nothing. Used by client/node/install.sh and client/inspector/install.sh.
#   scripts/npm_ci.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/npm_ci.sh DIR}
cd "$dir"
command -v node >/dev/null || { echo "node is missing (scripts/setup.sh --test)" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is missing (scripts/setup.sh --test)" >&2; exit 1; }
# The lock's digest, recorded once npm ci succeeded.
stamp=node_modules/.ikd-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -d node_modules || ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "$dir: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$want" >"$stamp"
fi
