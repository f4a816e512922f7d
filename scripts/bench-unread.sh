#!/usr/bin/env bash
# What ikd holds for callers that never read their answers, in one command:
# starts ikd on a free loopback port serving the example rigs and terrains,
# with a token file of fresh random read tokens (one per caller, so ikd
# counts each as a caller of its own) and otherwise its defaults, waits
# until it answers health checks, runs `ikd_loadgen --rpc=unread` against
# it with its process id (ikd's VmRSS idle and at its peak while the
# callers hold their unread TickStreams open, and the unary Ticks by status
# code), and stops it.
#
#   scripts/bench-unread.sh [IKD_LOADGEN_FLAGS...]   e.g. --seconds=3
#
# The tick is 2,000 humanoids of the synthetic crowd with every job's
# answer and its rotations: an answer of 4.5 MiB, under ikd's default
# 8 MiB --max_answer_bytes, and a request of 2.1 MiB, under its default
# 4 MiB --max_message_bytes; past about 3,500 characters ikd refuses the
# tick unless IKD_FLAGS raises those. The extra arguments go to ikd_loadgen
# after the script's own, so they may override them (--characters,
# --unread_streams, --unread_callers up to IKD_UNREAD_TOKENS, --seconds).
# Environment: IKD_BUILD_DIR (default build; server/ikd, client/ikctl and
# bench/ikd_loadgen built in it), IKD_UNREAD_TOKENS (read tokens made,
# default 16), IKD_FLAGS (more ikd flags, space-separated), e.g. the bounds
# effectively off:
#   IKD_FLAGS="--max_unread_answer_bytes=1073741824
#   --max_unread_answer_bytes_per_caller=1073741824" scripts/bench-unread.sh
# The tokens live in a temporary directory removed on exit and are never
# printed; they are in a file ikd_loadgen reads, not on its command line.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${IKD_BUILD_DIR:-build}
for program in server/ikd client/ikctl bench/ikd_loadgen; do
  if [[ ! -x $build_dir/$program ]]; then
    echo "bench-unread: $build_dir/$program is not built" \
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
(
  umask 077
  : >"$work/tokens"
  : >"$work/ikd_tokens"
  for _ in $(seq "${IKD_UNREAD_TOKENS:-16}"); do
    token=$(random_token)
    printf '%s\n' "$token" >>"$work/tokens"
    printf 'read %s\n' "$token" >>"$work/ikd_tokens"
  done
)

ikd_args=(--listen=127.0.0.1:0 --rig_dir=examples/rigs
  --terrain_dir=examples/terrains --token_file="$work/ikd_tokens")
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
    echo "bench-unread: ikd exited:" >&2
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
  echo "bench-unread: ikd did not answer health checks in 10 s:" >&2
  cat "$work/ikd.log" >&2
  exit 1
fi
echo "$listening"

status=0
"$build_dir/bench/ikd_loadgen" --rpc=unread --server="$server" \
  --ikd_pid="$ikd_pid" --unread_tokens_file="$work/tokens" \
  --characters=2000 "$@" || status=$?
stop_ikd
exit "$status"
