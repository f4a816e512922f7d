#!/usr/bin/env bash
# The Node.js client's tests (node --test) against a real ikd.
#   client/node/test.sh [IKD]     (default: the repository's build/server/ikd)
# Installs the locked dependencies first (npm ci) when node_modules is
# missing or older than package-lock.json, so a clean clone needs nothing
# done by hand; the tests start and stop their own ikd processes.
set -euo pipefail
cd "$(dirname "$0")"
IKD=${1:-../../build/server/ikd}
export IKD=$(realpath "$IKD")

./install.sh

node --version
exec node --test test/*.test.js
