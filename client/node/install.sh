#!/usr/bin/env bash
# Installs the Node.js client's locked dependencies (npm ci) when they are
# missing or stale (scripts/npm_ci.sh); otherwise does nothing.
#   client/node/install.sh
exec "$(dirname "$0")/../../scripts/npm_ci.sh" "$(dirname "$0")"
