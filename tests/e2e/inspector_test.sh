#!/usr/bin/env bash
# ikctl inspect on what a real ikd recorded (--record_dir), checked in a
# real browser: ikctl tick's crowd and inspector_ticks.py's ticks (every job
# kind, a bad pose under the pose check, a failed job, a TickStream
# baseline) are recorded; ikd stops; ikctl inspect serves the recording and
# inspector_browser.py drives Debian's headless Chromium through the page
# (console clean, timeline, filters, a picked joint's position against
# forward kinematics computed by the test, a click, pixels on the canvas).
# Also: a file that is not a recording, and a port already taken, are
# refused with a clear message. Usage: inspector_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2
E2E="$REPO/tests/e2e"
INSPECT_PID=""

stop_inspector() {
  if [[ -n "$INSPECT_PID" ]] && kill -0 "$INSPECT_PID" 2>/dev/null; then
    kill -TERM "$INSPECT_PID" 2>/dev/null || true
    wait "$INSPECT_PID" 2>/dev/null || true
  fi
}
trap 'stop_inspector; cleanup' EXIT

[[ -x /usr/bin/chromium ]] || fail "no /usr/bin/chromium (scripts/setup.sh --test installs it)"
"$REPO/client/inspector/install.sh" || fail "npm ci in client/inspector failed"
"$REPO/examples/python/generate_stubs.sh" "$WORK/stubs" >/dev/null || fail "stubs"

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains" --record_dir="$WORK/rec" \
  --record_methods=Tick,TickStream,SolveChain,GroundFeet,StepDynamics
"$IKCTL" --server="$SERVER" tick --rig=humanoid --characters=1000 --ticks=2 \
  --terrain=stairs || fail "ikctl tick"
IKD_CLIENT_STUBS="$WORK/stubs" PYTHONPATH="$REPO/client/python" \
  /usr/bin/python3 "$E2E/inspector_ticks.py" "$SERVER" "$REPO" \
  "$WORK/expect.json" || fail "inspector_ticks.py"
stop_server
ls "$WORK"/rec/*.ikrec >/dev/null || fail "ikd wrote no recording"

# A file that is not a recording is named as such.
out=$("$IKCTL" inspect "$WORK/expect.json" 2>&1) && fail "inspected a JSON file"
grep -q "$WORK/expect.json: not an ikd recording" <<<"$out" || fail "unclear: $out"

"$IKCTL" inspect "$WORK/rec" >"$WORK/inspect.out" 2>"$WORK/inspect.err" &
INSPECT_PID=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n '1s/^inspector: \(http:.*\)$/\1/p' "$WORK/inspect.out")
  [[ -n "$url" ]] && break
  kill -0 "$INSPECT_PID" 2>/dev/null || fail "ikctl inspect exited: $(cat "$WORK/inspect.err")"
  sleep 0.1
done
[[ "$url" =~ ^http://127\.0\.0\.1:[0-9]+/$ ]] || fail "no URL on the first line: $url"

# The same port again cannot be bound: said so, with the address.
port=${url##*:}
port=${port%/}
out=$("$IKCTL" inspect "$WORK/rec" --listen="127.0.0.1:$port" 2>&1) \
  && fail "a second inspector bound port $port"
grep -q "cannot serve the inspector on 127.0.0.1:$port: cannot bind" <<<"$out" \
  || fail "unclear: $out"

/usr/bin/python3 "$E2E/inspector_browser.py" "$url" "$WORK/expect.json" \
  || fail "the page (above); ikctl inspect said: $(cat "$WORK/inspect.err")"

kill -TERM "$INSPECT_PID"
code=0
wait "$INSPECT_PID" || code=$?
INSPECT_PID=""
[[ $code -eq 0 ]] || fail "ikctl inspect exited with $code after SIGTERM"
grep -q "inspector stopped" "$WORK/inspect.err" || fail "no 'inspector stopped'"
echo "inspector: ok"
