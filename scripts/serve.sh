#!/usr/bin/env bash
# README command (a): install what is missing, build, and serve the bundled
# example rigs and terrains on 127.0.0.1:50051 until SIGTERM / Ctrl-C.
# Environment: IKD_LISTEN (default 127.0.0.1:50051), IKD_BUILD_DIR (build),
# IKD_SKIP_SETUP=1 to skip the apt step. Extra arguments go to ikd.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -n "${IKD_SKIP_SETUP:-}" ]] || scripts/setup.sh
build_dir=${IKD_BUILD_DIR:-build}
scripts/build.sh "$build_dir" ikd ikctl >&2
exec "$build_dir/server/ikd" --listen="${IKD_LISTEN:-127.0.0.1:50051}" \
  --rig_dir=examples/rigs --terrain_dir=examples/terrains "$@"
