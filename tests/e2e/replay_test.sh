#!/usr/bin/env bash
# ikd --record_dir and ikctl replay: calls of every recorded method (ticks,
# a TickStream, SolveChain, GroundFeet on a registered terrain,
# StepDynamics, and a call that fails) recorded by one ikd replay bit for bit
# on a fresh ikd that holds no rig or terrain (the recording brings its
# own); on an ikd whose humanoid differs, the replay names the changed field
# and fails, and --replace registers the recorded rig and replays cleanly.
# A server with tokens writes none to its recording or its log. A recording
# is a file from anywhere: a crafted DeleteRig call is skipped (and named)
# unless --allow_registry_changes, a directory with a file cut short
# replays its other files and names the cut one, and seeded corruptions
# never crash replay or the server it replays to. Under a file-size limit
# ikd keeps serving and drops the records that do not fit.
# Usage: replay_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2
ik() { "$IKCTL" --server="$SERVER" "$@"; }

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains" --record_dir="$WORK/rec" \
  --record_methods=Tick,TickStream,SolveChain,GroundFeet,StepDynamics
ik tick --rig=humanoid --characters=8 --ticks=3 --terrain=stairs >/dev/null \
  || fail "tick"
ik tick --rig=humanoid --characters=4 --ticks=3 --stream >/dev/null \
  || fail "tick --stream"
ik solve --rig=humanoid --chain=left_arm --target=0.45,1.2,0.25 >/dev/null \
  || fail "solve"
ik ground --rig=humanoid --terrain=stairs --root=0,0,0.45 >/dev/null \
  || fail "ground"
ik dynamics --rig=humanoid --steps=2 >/dev/null || fail "dynamics"
ik solve --rig=humanoid --chain=no_such_chain --target=0,1,0 2>/dev/null \
  && fail "a solve for an unknown chain succeeded"
stop_server
ls "$WORK"/rec/ikd-*.ikrec >/dev/null || fail "no recording written"
grep -q "^ikd: recording Tick, TickStream, SolveChain, GroundFeet, StepDynamics to $WORK/rec (every call; characters all)$" "$LOG" \
  || fail "ikd does not say what it records"

# A character filter that matches no one is said once, after 1,000 ticks.
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains" --record_dir="$WORK/rec-nobody" \
  --record_characters=nobody
ik tick --rig=humanoid --characters=1 --ticks=1000 >/dev/null \
  || fail "ticks with a filter"
stop_server
[[ $(grep -c "matched no character of 1000 ticks; nothing is recorded" "$LOG") -eq 1 ]] \
  || fail "the unmatched filter is not said once"

# A fresh ikd with no rigs and no terrains of its own.
mkdir -p "$WORK/empty"
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/empty" \
  --terrain_dir="$WORK/empty"
out=$(ik replay "$WORK/rec") || fail "replay on a fresh ikd: $out"
echo "$out"
# 3 ticks, 3 stream ticks, 2 dynamics steps, solve, ground, the failed solve.
[[ "$out" == *"replayed 11 calls: every answer identical, bit for bit"* ]] \
  || fail "replay summary: $out"
stop_server

# A rig whose rest rotations are unit only to the 7 decimals a client
# wrote them with replays bit for bit on a fresh ikd too: the recording's
# stored form registers to the same revision.
mkdir -p "$WORK/near"
/usr/bin/python3 - "$REPO/examples/rigs/humanoid.json" \
  "$WORK/near/near.json" <<'PY'
import json, sys
rig = json.load(open(sys.argv[1]))
rig["name"] = "near"
for k, joint in enumerate(rig["joints"][1:]):
    joint["rest"]["rotation"] = ({"x": -0.0436194, "w": 0.9990482} if k % 2
                                 else {"y": 0.0348995, "w": 0.9993908})
json.dump(rig, open(sys.argv[2], "w"))
PY
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/near" \
  --terrain_dir="$WORK/empty" --record_dir="$WORK/rec-near" \
  --record_methods=Tick,SolveChain
ik tick --rig=near --characters=4 --ticks=2 >/dev/null || fail "tick near"
ik solve --rig=near --chain=left_arm --target=0.45,1.2,0.25 >/dev/null \
  || fail "solve near"
stop_server
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/empty" \
  --terrain_dir="$WORK/empty"
out=$(ik replay "$WORK/rec-near") || fail "replay of near on a fresh ikd: $out"
[[ "$out" == *"replayed 3 calls: every answer identical, bit for bit"* ]] \
  || fail "replay summary of near: $out"
stop_server

# An ikd whose humanoid has one cone narrowed.
mkdir -p "$WORK/changed"
/usr/bin/python3 - "$REPO/examples/rigs/humanoid.json" \
  "$WORK/changed/humanoid.json" <<'PY'
import json, sys
rig = json.load(open(sys.argv[1]))
rig["joints"][1]["limit"]["ball_socket"]["swing_max"] *= 0.9
json.dump(rig, open(sys.argv[2], "w"))
PY
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/changed" \
  --terrain_dir="$WORK/empty"
out=$(ik replay --max_differences=3 "$WORK/rec") \
  && fail "replay against a changed rig succeeded: $out"
echo "$out" | head -5
[[ "$out" == *"rig humanoid: the server holds revision"* ]] || fail "no rig report"
[[ "$out" == *"joints[1].limit.ball_socket.swing_max"* ]] || fail "no field path"
[[ "$out" == *"differences"* ]] || fail "no summary"
out=$(ik replay --replace "$WORK/rec") || fail "replay --replace: $out"
[[ "$out" == *"every answer identical"* ]] || fail "replay --replace: $out"
stop_server

# A server with tokens records the calls, never the token: it travels in
# the call's metadata, which no record holds.
printf 'read %s\nadmin %s\n' read-token-5f0c9e2a7b1d admin-token-93e4c1a8d6f2 \
  >"$WORK/tokens"
echo read-token-5f0c9e2a7b1d >"$WORK/read.token"
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains" --token_file="$WORK/tokens" \
  --record_dir="$WORK/rec-tokens" --record_methods=Tick,SolveChain
ik --token_file="$WORK/read.token" tick --rig=humanoid --characters=4 \
  --ticks=2 >/dev/null || fail "tick with a token"
ik --token_file="$WORK/read.token" solve --rig=humanoid --chain=left_arm \
  --target=0.45,1.2,0.25 >/dev/null || fail "solve with a token"
stop_server
ls "$WORK"/rec-tokens/ikd-*.ikrec >/dev/null || fail "no recording with tokens"
[[ $(cat "$WORK"/rec-tokens/ikd-*.ikrec | wc -c) -gt 1000 ]] \
  || fail "the recording with tokens is empty"
grep -rqa -e "token-5f0c9e2a7b1d" -e "token-93e4c1a8d6f2" "$WORK/rec-tokens" \
  && fail "a token was written to the recording"
grep -qa -e "token-5f0c9e2a7b1d" "$LOG" && fail "a token was logged"

# A crafted recording: the real one with a DeleteRig call of humanoid
# appended (RecordEntry.call, RecordedCall.method and .request, each a
# length-delimited field).
first=$(ls "$WORK"/rec/ikd-*.ikrec | head -1)
mkdir -p "$WORK/crafted"
/usr/bin/python3 - "$first" "$WORK/crafted/a.ikrec" <<'PY'
import sys
def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)
def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload
request = field(1, b"humanoid")                       # DeleteRigRequest.name
call = field(1, b"DeleteRig") + field(4, request)      # RecordedCall
entry = field(4, call)                                 # RecordEntry.call
data = open(sys.argv[1], "rb").read() + varint(len(entry)) + entry
open(sys.argv[2], "wb").write(data)
PY
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains"
# The crowd drives any rig: the tail has no arms or legs, only its dynamics.
out=$(ik tick --rig=tail --characters=2 --ticks=2 2>&1) \
  || fail "ikctl tick --rig=tail: $out"
[[ "$out" == *"no hand goals"*"failed: 0 characters, 0 jobs"* ]] \
  || fail "ikctl tick --rig=tail: $out"
# --json: health and tick print JSON (the tick's whole answer).
[[ $(ik --json health) == '{"status": "SERVING"}' ]] || fail "--json health"
ik --json tick --rig=humanoid --characters=2 --ticks=2 | /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
decoder, at, answers = json.JSONDecoder(), 0, []
while text[at:].strip():
    answer, at = decoder.raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
    answers.append(answer)
assert len(answers) == 2 and len(answers[0]["characters"]) == 2, answers
' || fail "--json tick is not two answers in JSON"
out=$(ik replay "$WORK/crafted/a.ikrec") || fail "crafted replay: $out"
[[ "$out" == *"skipped 1 DeleteRig call(s): a registry change"* ]] \
  || fail "the skipped DeleteRig is not named: $out"
ik rigs list | grep -q humanoid || fail "a replay deleted humanoid"
out=$(ik replay --allow_registry_changes "$WORK/crafted/a.ikrec" 2>&1) || true
ik rigs list | grep -q humanoid \
  && fail "--allow_registry_changes did not send the DeleteRig call"
stop_server

# A directory whose first file is cut short: the rest replays, the cut file
# is named with its record and what of it was replayed.
mkdir -p "$WORK/cut"
size=$(stat -c %s "$first")
head -c $((size - 7)) "$first" >"$WORK/cut/a.ikrec"
cp "$first" "$WORK/cut/b.ikrec"
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/empty" \
  --terrain_dir="$WORK/empty"
out=$(ik replay "$WORK/cut/b.ikrec") || fail "replay of the whole file: $out"
whole=$(echo "$out" | sed -n 's/^replayed \([0-9]*\) calls.*/\1/p')
out=$(ik replay "$WORK/cut" 2>&1) && fail "a cut recording replayed cleanly"
[[ "$out" == *"a.ikrec: record "*" does not parse"*"calls of it replayed"* ]] \
  || fail "the cut file is not named: $out"
[[ "$out" == *"file(s) could not be read to the end"* ]] \
  || fail "no summary for the cut file: $out"
count=$(echo "$out" | sed -n 's/^replayed \([0-9]*\) calls.*/\1/p')
[[ -n "$whole" && "$count" -ge "$whole" ]] \
  || fail "the file after the cut one was not replayed: $out"
stop_server

# Seeded corruptions of the real recording (cut anywhere, bytes flipped,
# bytes inserted, a byte set to a long varint's): replay never crashes or
# hangs, exits 0 or 1, names the file when it cannot read it to the end, and
# the ikd it replays to keeps serving.
mkdir -p "$WORK/fuzz"
/usr/bin/python3 - "$first" "$WORK/fuzz" <<'PY'
import random, sys
clean = open(sys.argv[1], "rb").read()
engine = random.Random(20261207)
for i in range(40):
    data = bytearray(clean)
    at = engine.randrange(len(data))
    kind = i % 4
    if kind == 0:
        del data[at:]
    elif kind == 1:
        for _ in range(engine.randint(1, 8)):
            data[engine.randrange(len(data))] ^= engine.randint(1, 255)
    elif kind == 2:
        data[at:at] = bytes([engine.randrange(256)] * engine.randint(1, 16))
    else:
        data[at] = 0xFF
    open(f"{sys.argv[2]}/seed{i:02d}.ikrec", "wb").write(bytes(data))
PY
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$WORK/empty" \
  --terrain_dir="$WORK/empty"
refused=0
for f in "$WORK"/fuzz/*.ikrec; do
  code=0
  out=$(timeout 60 "$IKCTL" --server="$SERVER" replay "$f" 2>&1) || code=$?
  [[ $code -le 1 ]] || fail "replay of $f exited $code: $out"
  if [[ "$out" == *"could not be read to the end"* ]]; then
    refused=$((refused + 1))
    [[ "$out" == *"ikctl: $f: "* ]] || fail "the file is not named: $out"
  fi
done
ik health >/dev/null || fail "ikd stopped serving after the corrupt replays"
echo "replay: 40 seeded corruptions, $refused not read to the end, no crash"
[[ $refused -gt 0 ]] || fail "no corruption was refused: the fuzz reads nothing"
stop_server

# A file-size limit of 64 KiB (ulimit -f): writes past it fail (SIGXFSZ
# ignored), ikd keeps serving and logs the dropped records.
start_server bash -c 'ulimit -f 64 && exec "$@"' ikd "$IKD" \
  --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains" --record_dir="$WORK/rec-limit" \
  --record_methods=Tick
ik tick --rig=humanoid --characters=64 --ticks=30 >/dev/null \
  || fail "ticks under a file-size limit"
ik health >/dev/null || fail "ikd stopped serving under a file-size limit"
stop_server
# The recorder writes behind the calls: its log line is there once ikd stops.
grep -q "ikd: recording: .*File too large; .*record(s) dropped" "$LOG" \
  || fail "the dropped records are not logged"

# Not a recording.
echo "hello" >"$WORK/not.ikrec"
out=$("$IKCTL" --server=127.0.0.1:1 replay "$WORK/not.ikrec" 2>&1) \
  && fail "a text file replayed"
[[ "$out" == *"not an ikd recording"* ]] || fail "not-a-recording message: $out"
echo "replay: ok"
