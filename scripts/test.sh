#!/usr/bin/env bash
# README command (b): install what is missing, build everything and run every
# test with ctest (unit, service, end-to-end, Python example, container smoke
# test). IKD_SKIP_CONTAINER=1 skips the container smoke test locally (never in
# CI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
build_dir=${IKD_BUILD_DIR:-build}
scripts/build.sh "$build_dir"
cd "$build_dir"
ctest --output-on-failure -j2 --timeout 3000
