#!/usr/bin/env bash
# Installs the inspector page's locked three.js (npm ci) when it is missing
# or stale (scripts/npm_ci.sh); otherwise does nothing. ikctl inspect serves
# node_modules/three from here; nothing is fetched at run time.
#   client/inspector/install.sh
exec "$(dirname "$0")/../../scripts/npm_ci.sh" "$(dirname "$0")"
