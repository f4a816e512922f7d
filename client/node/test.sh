#!/usr/bin/env bash
# The Node.js client's tests (node --test) against a real ikd.
#   client/node/test.sh IKD
# Installs the locked dependencies first (npm ci) when node_modules is
# missing or older than package-lock.json, so a clean clone needs nothing
# done by hand; the tests start and stop their own ikd processes.
set -euo pipefail
cd "$(dirname "$0")"
IKD=${1:?usage: client/node/test.sh IKD}
export IKD=$(realpath "$IKD")

command -v node >/dev/null || { echo "node is missing (scripts/setup.sh --test)" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm is missing (scripts/setup.sh --test)" >&2; exit 1; }

# npm ci when node_modules is missing or stale: it records the lock it was
# installed from in node_modules/.package-lock.json.
stamp=node_modules/.ikd-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -d node_modules || ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "client/node: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$want" >"$stamp"
fi

node --version
exec node --test test/*.test.js
