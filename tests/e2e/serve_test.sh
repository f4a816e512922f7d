#!/usr/bin/env bash
# Starts ikd exactly as README command (a) does (scripts/serve.sh), on a free
# port rather than the default 50051 so a developer's running ikd does not
# interfere, and drives it with ikctl.
# Usage: serve_test.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
BUILD=$1
IKCTL=$BUILD/client/ikctl

IKD_SKIP_SETUP=1 IKD_BUILD_DIR=$BUILD IKD_LISTEN=127.0.0.1:0 \
  start_server "$REPO/scripts/serve.sh"

out=$("$IKCTL" --server="$SERVER" health) || fail "health: $out"
[[ "$out" == SERVING ]] || fail "health: $out"

list=$("$IKCTL" --server="$SERVER" rigs list) || fail "rigs list"
grep -q '^humanoid ' <<<"$list" || fail "humanoid not listed: $list"
grep -q '^tail ' <<<"$list" || fail "tail not listed: $list"

# A reachable point for the left arm (the humanoid faces +Z, left is +X).
out=$("$IKCTL" --server="$SERVER" solve --rig humanoid --chain left_arm \
  --target 0.45,1.2,0.15 --json) || fail "solve failed: $out"
grep -q '"reached": true' <<<"$out" || fail "not reached: $out"

out=$("$IKCTL" --server="$SERVER" solve --rig humanoid --chain left_arm \
  --target 5,5,5) || fail "unreachable solve failed: $out"
grep -q 'NOT reached' <<<"$out" || fail "unreachable target reported: $out"

# Every solver on the 13-joint tail.
for solver in fabrik ccd auto; do
  out=$("$IKCTL" --server="$SERVER" solve --rig tail --chain tail \
    --target 0.25,0.55,-0.95 --solver $solver --json) || fail "tail $solver"
  grep -q '"reached": true' <<<"$out" || fail "tail $solver: $out"
  grep -q '"stop_reason": "STOP_REASON_REACHED"' <<<"$out" || fail "$out"
  grep -q '"limited_joints": \[' <<<"$out" || fail "no limited_joints: $out"
done
out=$("$IKCTL" --server="$SERVER" solve --rig tail --chain tail \
  --target 0.25,0.55,-0.95 --solver ccd) || fail "tail readable"
grep -q '^tail: reached, .* SOLVER_CCD, STOP_REASON_REACHED' <<<"$out" \
  || fail "tail readable: $out"

# An ad hoc chain with an orientation goal for its tip.
out=$("$IKCTL" --server="$SERVER" solve --rig humanoid --root left_clavicle \
  --tip left_wrist --target 0.45,1.2,0.15 --orientation 0,0,0,1 \
  --orientation_weight 0.5 --json) || fail "ad hoc: $out"
grep -q '"chain": "left_clavicle..left_wrist"' <<<"$out" || fail "$out"
grep -q '"name": "left_wrist"' <<<"$out" || fail "tip not turned: $out"

code=0
"$IKCTL" --server="$SERVER" solve --rig tail --chain tail --target 0,1,0 \
  --solver spline 2>/dev/null || code=$?
[[ $code -eq 2 ]] || fail "unknown solver name exit code $code"

# Errors come back with their code and field path, exit status 1.
code=0
err=$("$IKCTL" --server="$SERVER" solve --rig humanoid --chain tentacle \
  --target 0,1,0 2>&1) || code=$?
[[ $code -eq 1 ]] || fail "unknown chain exit code $code"
grep -q 'NOT_FOUND: goals\[0\].chain' <<<"$err" || fail "error text: $err"

# Register, get and delete a rig through ikctl.
sed 's/"name": "tail"/"name": "tail_copy"/' "$REPO/examples/rigs/tail.json" \
  >"$WORK/tail_copy.json"
out=$("$IKCTL" --server="$SERVER" rigs register "$WORK/tail_copy.json") \
  || fail "register: $out"
grep -q '^tail_copy sha256:.* (created)$' <<<"$out" || fail "register: $out"
out=$("$IKCTL" --server="$SERVER" rigs get tail_copy --json) || fail "get"
grep -q '"name": "tail_copy"' <<<"$out" || fail "get: $out"
out=$("$IKCTL" --server="$SERVER" rigs delete tail_copy) || fail "delete"
grep -q '^deleted tail_copy sha256:' <<<"$out" || fail "delete: $out"

# The ponytail swings down from straight back and settles against the back
# collider: after 2 s the tip hangs well below its start and has stopped.
out=$("$IKCTL" --server="$SERVER" dynamics --rig humanoid --steps 120 \
  --dt 0.0166667) || fail "dynamics: $out"
first=$(awk '$1 == 1 {print}' <<<"$out")
last=$(awk '$1 == 120 {print}' <<<"$out")
before=$(awk '$1 == 119 {print}' <<<"$out")
[[ -n "$first" && -n "$last" ]] || fail "dynamics output: $out"
awk -v a="$first" -v b="$last" 'BEGIN {
  split(a, f, /[(,) ]+/); split(b, l, /[(,) ]+/);
  # fields: step time chain x y z
  exit !(l[5] < f[5] - 0.3) }' || fail "ponytail did not fall: $first / $last"
awk -v a="$before" -v b="$last" 'BEGIN {
  split(a, f, /[(,) ]+/); split(b, l, /[(,) ]+/);
  d = (l[4]-f[4])^2 + (l[5]-f[5])^2 + (l[6]-f[6])^2;
  exit !(d < 1e-6) }' || fail "ponytail still moving: $before / $last"
out=$("$IKCTL" --server="$SERVER" dynamics --rig tail --steps 3 --json) \
  || fail "dynamics --json"
[[ $(grep -c '"previous_positions"' <<<"$out") -ge 3 ]] \
  || fail "dynamics --json: $out"

# GroundFeet: register the bundled stairs mesh and put the humanoid's feet on
# them. Standing at floor level in front of step 2, both soles go up onto its
# tread (y = 0.3); turned sideways across the edge between steps 1 and 2, one
# foot lands on each tread.
terrains=$("$IKCTL" --server="$SERVER" terrain list) || fail "terrain list"
grep -q '^slope .* heightfield ' <<<"$terrains" || fail "slope: $terrains"
sed 's/"name": "stairs"/"name": "e2e_stairs"/' \
  "$REPO/examples/terrains/stairs.json" >"$WORK/stairs.json"
out=$("$IKCTL" --server="$SERVER" terrain register "$WORK/stairs.json") \
  || fail "terrain register: $out"
grep -q '^e2e_stairs sha256:.* (created)$' <<<"$out" || fail "register: $out"
out=$("$IKCTL" --server="$SERVER" terrain list) || fail "terrain list"
grep -q '^e2e_stairs .* mesh  *26 ' <<<"$out" || fail "terrain list: $out"

# Each foot's grounded, reached and contact y from --json, one line per
# foot, then the pelvis drop.
feet() {
  python3 -c 'import json, sys
answer = json.load(sys.stdin)
for foot in answer["feet"]:
    print(foot["grounded"], foot["reached"], "%.6f" % foot["contact_point"]["y"])
print("drop %.6f" % answer["pelvis_drop"])'
}
out=$("$IKCTL" --server="$SERVER" ground --rig humanoid --terrain e2e_stairs \
  --root 0,0,0.45 --json) || fail "ground: $out"
got=$(feet <<<"$out") || fail "ground --json: $out"
[[ "$got" == $'True True 0.300000\nTrue True 0.300000\ndrop 0.000000' ]] \
  || fail "feet not on step 2: $got"
printf '%s\n' '{"root": {"translation": {"x": 0, "y": 0.3, "z": 0.3},' \
  '"rotation": {"x": 0, "y": 0.7071067811865476, "z": 0,' \
  '"w": 0.7071067811865476}}}' >"$WORK/sideways.json"
out=$("$IKCTL" --server="$SERVER" ground --rig humanoid --terrain e2e_stairs \
  --pose "$WORK/sideways.json" --json) || fail "ground sideways: $out"
got=$(feet <<<"$out") || fail "ground --json: $out"
[[ "$got" == $'True True 0.150000\nTrue True 0.300000\ndrop 0.150506' ]] \
  || fail "feet not on steps 1 and 2: $got"
out=$("$IKCTL" --server="$SERVER" ground --rig humanoid \
  --plane 0,0.1,0,0,1,0 --plane 0,-1,0,0,1,0 --weights 1,0.5) \
  || fail "ground planes: $out"
grep -q '^left_leg  *yes  *yes  *(0.090000, 0.100000, ' <<<"$out" \
  || fail "ground planes readable: $out"
code=0
err=$("$IKCTL" --server="$SERVER" ground --rig humanoid --terrain nowhere \
  2>&1) || code=$?
[[ $code -eq 1 ]] || fail "unknown terrain exit code $code"
grep -q "NOT_FOUND: ground.terrains\[0\]: terrain 'nowhere'" <<<"$err" \
  || fail "unknown terrain: $err"
# Usage errors exit 2 without calling the server; the server's field errors
# exit 1 with the path.
for bad in "--plane 0,0,0" "--terrain=" "--plane 0,0,0,0,1,0 --weights 1,x" \
    "--rig= --plane 0,0,0,0,1,0" "--plane 0,0,0,0,1,0 --root 1,2"; do
  code=0
  # shellcheck disable=SC2086  # the cases are word-split on purpose
  "$IKCTL" --server="$SERVER" ground --rig humanoid $bad 2>/dev/null \
    || code=$?
  [[ $code -eq 2 ]] || fail "ground $bad: exit code $code"
done
code=0
err=$("$IKCTL" --server="$SERVER" ground --rig humanoid \
  --plane 0,0,0,0,1,0 --weights 1,1.5 2>&1) || code=$?
[[ $code -eq 1 ]] || fail "weight 1.5 exit code $code"
grep -q 'INVALID_ARGUMENT: weights\[1\]' <<<"$err" || fail "weights: $err"
out=$("$IKCTL" --server="$SERVER" terrain delete e2e_stairs) || fail "delete"
grep -q '^deleted e2e_stairs sha256:' <<<"$out" || fail "delete: $out"

# The tick: a crowd of 200 walking over the stairs, unary and on one stream;
# every job of every character answered.
for mode in "" "--stream"; do
  # shellcheck disable=SC2086  # empty or one flag
  out=$("$IKCTL" --server="$SERVER" tick --rig humanoid --characters 200 \
    --ticks 3 --terrain stairs $mode) || fail "tick $mode: $out"
  [[ $(grep -c '^tick [123]: 200 characters in .* ms; feet grounded .*, goals reached 400/400, dynamic chains stepped 200; failed: 0 characters, 0 jobs$' \
    <<<"$out") -eq 3 ]] || fail "tick $mode: $out"
done
code=0
"$IKCTL" --server="$SERVER" tick --rig nobody --ticks 1 2>/dev/null \
  || code=$?
[[ $code -eq 1 ]] || fail "tick unknown rig exit code $code"

code=0
"$IKCTL" --server="$SERVER" frobnicate 2>/dev/null || code=$?
[[ $code -eq 2 ]] || fail "usage error exit code $code"

# Bad flags stop ikd at once with exit status 2 and the flag named.
for bad in --solver_nice=20 --solver_nice=-1 --solver_threads=-1 \
  --max_queued_calls=0; do
  code=0
  err=$(timeout 20 "$BUILD/server/ikd" --listen=127.0.0.1:0 "$bad" 2>&1 \
    >/dev/null) \
    || code=$?
  [[ $code -eq 2 ]] || fail "ikd $bad: exit code $code"
  flag=${bad%%=*}
  grep -q -- "$flag" <<<"$err" || fail "ikd $bad: $err"
done

stop_server
echo "e2e serve + ikctl: ok"
