#!/usr/bin/env bash
# Bring your own character from Node.js: a rig imported from glTF with ikctl,
# given a dynamic chain, registered, solved, grounded and stepped by
# examples/node/byo_character.mjs through a running ikd with the Node package
# (client/node), then the same jobs in one tick in each pose form.
#   tests/e2e/byo_node_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$(realpath "${1:?usage: byo_node_test.sh IKD IKCTL}")
IKCTL=$(realpath "${2:?usage: byo_node_test.sh IKD IKCTL}")

# The package's locked dependencies (npm ci on a clean clone). ctest runs
# this and e2e_node_package under one RESOURCE_LOCK, so two npm ci never
# race.
"$REPO/client/node/install.sh" || fail "npm ci in client/node failed"

# No example rigs: the only rig is the one imported from glTF. The stairs
# terrain comes from examples/terrains.
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir= \
  --terrain_dir="$REPO/examples/terrains"

"$IKCTL" rigs import "$REPO/examples/gltf/hero.gltf" --name=hero \
  >"$WORK/hero.json" 2>"$WORK/import.err" || {
  cat "$WORK/import.err" >&2
  fail "ikctl rigs import"
}
grep -q "rig 'hero': 24 joints, 4 chains, 2 legs" "$WORK/import.err" ||
  { cat "$WORK/import.err" >&2; fail "unexpected import summary"; }

node "$REPO/examples/node/byo_character.mjs" --server "$SERVER" \
  --rig-json "$WORK/hero.json" >"$WORK/out.txt" 2>&1 || {
  cat "$WORK/out.txt" >&2
  fail "byo_character.mjs exited non-zero"
}
cat "$WORK/out.txt"
out=$WORK/out.txt

grep -Eq '^registered hero sha256:[0-9a-f]{16} ' "$out" || fail "hero not registered"
grep -Eq '^left_arm: reached=true residual=' "$out" || fail "left_arm not reached"
for leg in left_leg right_leg; do
  grep -Eq "^ground $leg: grounded=true reached=true contact=\(" "$out" ||
    fail "$leg not grounded"
done
grep -q '^dynamics step 1: .* reset=DYNAMICS_RESET_EMPTY_STATE joints=hair_1,hair_2,hair_3' "$out" ||
  fail "the ponytail's first step"
grep -q '^dynamics step 60: .* reset=DYNAMICS_RESET_NONE ' "$out" ||
  fail "the state was not carried to step 60"

# The tip after 60 steps: finite, and below where it rests (the ponytail
# starts straight back from the head and swings down).
rest_y=$(sed -n 's/^dynamics rest: tip [^ ]* at (\([^,]*\), \([^,]*\), .*/\2/p' "$out")
tip=$(sed -n 's/^dynamics step 60: tip=(\([^)]*\)).*/\1/p' "$out")
[[ -n "$rest_y" && -n "$tip" ]] || fail "no rest height or step-60 tip in the output"
python3 - "$rest_y" "$tip" <<'EOF' || fail "ponytail tip after 60 steps: ($tip), rest height $rest_y"
import math, sys
rest_y = float(sys.argv[1])
x, y, z = (float(v) for v in sys.argv[2].split(","))
assert all(math.isfinite(v) for v in (x, y, z)), "not finite"
assert y < rest_y - 0.05, f"tip y {y} not below rest {rest_y}"
EOF

# The same jobs in one tick, the pose in the compact form (float32 by
# default): answered in it, with float32 dynamics states.
grep -q '^tick hero (float): status=OK reached=1/1 grounded=2/2 turned=[1-9][0-9]* states=float32 compact=true$' "$out" ||
  fail "the compact tick"
# The 48-bit form answers alike; the Pose of doubles is answered too, in
# its own form.
for form in quantized:float32:true pose:double:false; do
  IFS=: read -r name states compact <<<"$form"
  node "$REPO/examples/node/byo_character.mjs" --server "$SERVER" \
    --rig-json "$WORK/hero.json" --pose-form "$name" >"$WORK/$name.txt" 2>&1 || {
    cat "$WORK/$name.txt" >&2
    fail "byo_character.mjs --pose-form $name exited non-zero"
  }
  grep -q "^tick hero ($name): status=OK reached=1/1 grounded=2/2 turned=[1-9][0-9]* states=$states compact=$compact\$" \
    "$WORK/$name.txt" || { cat "$WORK/$name.txt" >&2; fail "the $name tick"; }
  cmp <(grep '^tick hero turned:' "$out") <(grep '^tick hero turned:' "$WORK/$name.txt") ||
    fail "the $name tick turned other joints"
done

# The rig the server holds is the imported one plus the ponytail.
"$IKCTL" --server="$SERVER" --json rigs get hero >"$WORK/get.json" 2>&1 ||
  { cat "$WORK/get.json" >&2; fail "ikctl rigs get hero"; }
python3 - "$WORK/get.json" <<'EOF' || fail "the registered rig: $(cat "$WORK/get.json")"
import json, sys
answer = json.load(open(sys.argv[1]))
rig = answer.get("rig", answer)
assert len(rig["joints"]) == 24, len(rig["joints"])
assert [c["name"] for c in rig["chains"]] == ["left_arm", "left_leg", "right_arm", "right_leg"]
assert [d["name"] for d in rig["dynamic_chains"]] == ["ponytail"]
assert rig["dynamic_chains"][0]["root"] == "hair_1"
EOF

stop_server
echo "PASS"
