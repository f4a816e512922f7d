#!/usr/bin/env bash
# Configures (once) and builds ikd. Usage: scripts/build.sh [BUILD_DIR] [TARGET...]
# BUILD_DIR defaults to build/; with no TARGET everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j2 "${targets[@]}"
