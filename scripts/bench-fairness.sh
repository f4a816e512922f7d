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
build_dir=${IKD_BUILD_DIR:-build}
for program in server/ikd client/ikctl bench/ikd_loadgen; do
  if [[ ! -x $build_dir/$program ]]; then
    echo "bench-fairness: $build_dir/$program is not built" \
      "(cmake --build $build_dir --target ikd ikctl ikd_loadgen)" >&2
    exit 1
  fi
done

work=$(mktemp -d)
ikd_pid=
stop_ikd() {
  if [[ -n $ikd_pid ]]; then
    kill "$ikd_pid" 2>/dev/null || true
    wait "$ikd_pid" 2>/dev/null || true
    ikd_pid=
  fi
}
trap 'stop_ikd; rm -rf "$work"' EXIT

# 32 random bytes as 64 hex digits (ikd takes 16 to 512 visible characters).
random_token() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
victim_token=$(random_token)
flood_token=$(random_token)
(
  umask 077
  printf 'read %s\nadmin %s\n' "$victim_token" "$flood_token" >"$work/tokens"
)

ikd_args=(--listen=127.0.0.1:0 --rig_dir=examples/rigs
  --terrain_dir=examples/terrains --token_file="$work/tokens")
if [[ -n ${IKD_SOLVER_THREADS:-} ]]; then
  ikd_args+=(--solver_threads="$IKD_SOLVER_THREADS")
fi
if [[ -n ${IKD_FLAGS:-} ]]; then
  read -ra extra_ikd_args <<<"$IKD_FLAGS"
  ikd_args+=("${extra_ikd_args[@]}")
fi
: >"$work/ikd.log"  # there before the loop below first reads it
"$build_dir/server/ikd" "${ikd_args[@]}" 2>"$work/ikd.log" &
ikd_pid=$!

# Port 0: ikd picks a free port and names it in its "listening on" line.
server=
for _ in $(seq 100); do
  if ! kill -0 "$ikd_pid" 2>/dev/null; then
    echo "bench-fairness: ikd exited:" >&2
    cat "$work/ikd.log" >&2
    exit 1
  fi
  listening=$(grep -m1 '^ikd: listening on ' "$work/ikd.log" || true)
  if [[ -n $listening ]]; then
    server=$(awk '{print $4}' <<<"$listening")
    if "$build_dir/client/ikctl" health --server="$server" >/dev/null 2>&1
    then
      break
    fi
  fi
  sleep 0.1
done
if [[ -z $server ]] ||
  ! "$build_dir/client/ikctl" health --server="$server" >/dev/null 2>&1; then
  echo "bench-fairness: ikd did not answer health checks in 10 s:" >&2
  cat "$work/ikd.log" >&2
  exit 1
fi
echo "$listening"

status=0
"$build_dir/bench/ikd_loadgen" --rpc=fairness --flood=all \
  --server="$server" --victim_token="$victim_token" \
  --flood_token="$flood_token" "$@" || status=$?
stop_ikd
exit "$status"
