#!/usr/bin/env bash
# The fairness table in one command: starts ikd on a free loopback port
# serving the example rigs and terrains, with a token file of two fresh
# random tokens -- a read token for the victim, an admin token for the
# flood (the mesh flood registers terrains) -- waits until it answers
# health checks, runs `ikd_loadgen --rpc=fairness --flood=all` with both
# tokens against it (every flood kind, each under both victims: a tiny
# call ikd answers inline and one that takes the solver pool), and stops
# it.
#
#   scripts/bench-fairness.sh [IKD_LOADGEN_FLAGS...]    e.g. --seconds=3
#
# The extra arguments go to ikd_loadgen after the script's own, so they may
# override them (--flood=mesh, --victim=pooled). Environment: IKD_BUILD_DIR
# (default build; server/ikd, client/ikctl and bench/ikd_loadgen built in
# it), IKD_SOLVER_THREADS (ikd --solver_threads; unset: ikd's default, one
# per CPU), IKD_FLAGS (more ikd flags, space-separated). The tokens live in
# a temporary directory removed on exit and are never printed; they are on
# ikd_loadgen's command lines while it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
name=bench-fairness
build_dir=${IKD_BUILD_DIR:-build}
# shellcheck source=scripts/bench-ikd.sh
source scripts/bench-ikd.sh
check_built

work=$(mktemp -d)
trap 'stop_ikd; rm -rf "$work"' EXIT
victim_token=$(random_token)
flood_token=$(random_token)
(
  umask 077
  printf 'read %s\nadmin %s\n' "$victim_token" "$flood_token" >"$work/tokens"
)

ikd_args=(--token_file="$work/tokens")
if [[ -n ${IKD_SOLVER_THREADS:-} ]]; then
  ikd_args+=(--solver_threads="$IKD_SOLVER_THREADS")
fi
start_ikd "${ikd_args[@]}"
echo "$listening"

status=0
"$build_dir/bench/ikd_loadgen" --rpc=fairness --flood=all \
  --server="$server" --victim_token="$victim_token" \
  --flood_token="$flood_token" "$@" || status=$?
stop_ikd
exit "$status"
