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
name=bench-unread
build_dir=${IKD_BUILD_DIR:-build}
# shellcheck source=scripts/bench-ikd.sh
source scripts/bench-ikd.sh
check_built

work=$(mktemp -d)
trap 'stop_ikd; rm -rf "$work"' EXIT
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

start_ikd --token_file="$work/ikd_tokens"
echo "$listening"

status=0
"$build_dir/bench/ikd_loadgen" --rpc=unread --server="$server" \
  --ikd_pid="$ikd_pid" --unread_tokens_file="$work/tokens" \
  --characters=2000 "$@" || status=$?
stop_ikd
exit "$status"
