#!/usr/bin/env bash
# A Python program registers a rig imported from glTF, solves, grounds and steps
# it through a running ikd with the ikd_client package. ikd serves no rigs
# (--rig_dir=), only the example terrains, so the rig can only come from
# `ikctl rigs import examples/gltf/hero.gltf`.
# Usage: byo_python_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir= \
  --terrain_dir="$REPO/examples/terrains"

"$IKCTL" rigs import "$REPO/examples/gltf/hero.gltf" --name=hero \
  >"$WORK/hero.json" 2>"$WORK/import.log" \
  || fail "ikctl rigs import: $(cat "$WORK/import.log")"
grep -q "^ikctl: import: rig 'hero': 24 joints, 4 chains, 2 legs" \
  "$WORK/import.log" || fail "import summary: $(cat "$WORK/import.log")"

# The stubs into the test's own directory, found through IKD_CLIENT_STUBS.
"$REPO/examples/python/generate_stubs.sh" "$WORK/stubs"
out=$(IKD_CLIENT_STUBS="$WORK/stubs" /usr/bin/python3 \
  "$REPO/examples/python/byo_character.py" --server="$SERVER" \
  --rig-json="$WORK/hero.json" 2>&1) || fail "byo_character.py: $out"
echo "$out"

grep -q '^registered hero sha256:[0-9a-f]\{16\} (24 joints, 4 chains, 2 legs, 1 dynamic chain)$' \
  <<<"$out" || fail "registered"
grep -q '^left_arm: shoulder mixamorig_LeftArm at (0.160000, 1.390000, 0.000000)' \
  <<<"$out" || fail "shoulder from forward kinematics"
grep -q '^left_arm: reached=True residual=' <<<"$out" || fail "left_arm reached"
for leg in left_leg right_leg; do
  grep -q "^ground $leg: grounded=True reached=True contact=([-0-9.]*, 0.300000, " \
    <<<"$out" || fail "$leg grounded on the second step's tread"
done

# The ponytail falls: after 60 steps its tip is finite and below where it
# started (hair_3 at rest: (95 + 12 + 15 + 20 + 10 + 8) cm = 1.60 m up).
rest=$(sed -n 's/^dynamics rest: tip=(\(.*\))$/\1/p' <<<"$out")
tip=$(sed -n 's/^dynamics step 60: tip=(\([^)]*\)).*/\1/p' <<<"$out")
[[ -n "$rest" && -n "$tip" ]] || fail "no rest or step 60 tip"
[[ $(grep -c '^dynamics step ' <<<"$out") -ge 3 ]] || fail "steps printed"
grep -q '^dynamics step 60: .* reset=DYNAMICS_RESET_NONE$' <<<"$out" \
  || fail "the state was not carried"
/usr/bin/python3 - "$rest" "$tip" <<'PY' || fail "ponytail tip: rest ($rest), step 60 ($tip)"
import math, sys
rest = [float(v) for v in sys.argv[1].split(",")]
tip = [float(v) for v in sys.argv[2].split(",")]
assert abs(rest[1] - 1.60) < 1e-6, rest
assert all(math.isfinite(v) for v in tip), tip
assert tip[1] < rest[1] - 0.1, (rest, tip)
# Three bones of 0.12 m from hair_1 (1.60 m up): never lower than 1.36 m.
assert tip[1] > 1.60 - 0.24 - 1e-6, tip
PY

stop_server
echo "byo python: ok"
