# shellcheck shell=bash
# shellcheck disable=SC2154  # name, build_dir and work are the caller's
# Sourced by the benchmark scripts (bench-fairness.sh, bench-unread.sh): an
# ikd on a free loopback port serving the example rigs and terrains, for
# one benchmark run. Needs `name` (for messages) and `build_dir` set.
#
#   check_built                 server/ikd, client/ikctl, bench/ikd_loadgen
#   work=$(mktemp -d); trap 'stop_ikd; rm -rf "$work"' EXIT
#   random_token                32 random bytes as 64 hex digits
#   start_ikd ARGS...           ikd with ARGS and $IKD_FLAGS (space-separated)
#                               added; sets ikd_pid, server and listening
#   stop_ikd

check_built() {
  local program
  for program in server/ikd client/ikctl bench/ikd_loadgen; do
    if [[ ! -x $build_dir/$program ]]; then
      echo "$name: $build_dir/$program is not built" \
        "(cmake --build $build_dir --target ikd ikctl ikd_loadgen)" >&2
      exit 1
    fi
  done
}

# ikd takes tokens of 16 to 512 visible characters.
random_token() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }

ikd_pid=
stop_ikd() {
  if [[ -n $ikd_pid ]]; then
    kill "$ikd_pid" 2>/dev/null || true
    wait "$ikd_pid" 2>/dev/null || true
    ikd_pid=
  fi
}

# Port 0: ikd picks a free port and names it in its "listening on" line;
# returns once it answers health checks (at most 10 s).
start_ikd() {
  local ikd_args=(--listen=127.0.0.1:0 --rig_dir=examples/rigs
    --terrain_dir=examples/terrains "$@")
  if [[ -n ${IKD_FLAGS:-} ]]; then
    local extra_ikd_args
    read -ra extra_ikd_args <<<"$IKD_FLAGS"
    ikd_args+=("${extra_ikd_args[@]}")
  fi
  : >"$work/ikd.log"  # there before the loop below first reads it
  "$build_dir/server/ikd" "${ikd_args[@]}" 2>"$work/ikd.log" &
  ikd_pid=$!
  server=
  listening=
  for _ in $(seq 100); do
    if ! kill -0 "$ikd_pid" 2>/dev/null; then
      echo "$name: ikd exited:" >&2
      cat "$work/ikd.log" >&2
      exit 1
    fi
    listening=$(grep -m1 '^ikd: listening on ' "$work/ikd.log" || true)
    if [[ -n $listening ]]; then
      server=$(awk '{print $4}' <<<"$listening")
      if "$build_dir/client/ikctl" health --server="$server" >/dev/null 2>&1
      then
        return 0
      fi
    fi
    sleep 0.1
  done
  echo "$name: ikd did not answer health checks in 10 s:" >&2
  cat "$work/ikd.log" >&2
  exit 1
}
