# Shared helpers for the end-to-end tests (sourced, not run).
# start_server CMD...: runs CMD in the background with its stderr in $LOG,
# waits (bounded) for "ikd: listening on HOST:PORT" and sets SERVER_PID and
# SERVER (HOST:PORT). The server is stopped on exit.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
LOG=$WORK/ikd.log
SERVER_PID=""

fail() {
  echo "FAIL: $*" >&2
  echo "--- ikd log ---" >&2
  cat "$LOG" >&2 || true
  exit 1
}

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

start_server() {
  : >"$LOG"
  "$@" 2>"$LOG" &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    SERVER=$(sed -n 's/^ikd: listening on \([^ ]*\) .*/\1/p' "$LOG")
    [[ -n "$SERVER" ]] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || fail "ikd exited before listening"
    sleep 0.5
  done
  fail "ikd did not start listening within 300 s"
}

# stop_server: SIGTERM, then expect a clean exit within 20 s.
stop_server() {
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 40); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  kill -0 "$SERVER_PID" 2>/dev/null && fail "ikd ignored SIGTERM"
  local code=0
  wait "$SERVER_PID" || code=$?
  SERVER_PID=""
  [[ $code -eq 0 ]] || fail "ikd exited with $code after SIGTERM"
  grep -q "ikd: stopped" "$LOG" || fail "ikd did not log its shutdown"
}
