#!/usr/bin/env bash
# Runs examples/python/ik_client.py (Debian's python3-grpcio) against a live
# ikd serving the example rigs. Usage: python_example_test.sh IKD
source "$(dirname "$0")/lib.sh"
IKD=$1
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs"

"$REPO/examples/python/generate_stubs.sh" "$WORK/stubs"
out=$(/usr/bin/python3 "$REPO/examples/python/ik_client.py" \
  --server="$SERVER" --stubs="$WORK/stubs") || fail "python client: $out"
echo "$out"
grep -q '^registered python_arm sha256:' <<<"$out" || fail "register"
grep -q '^python_arm/arm: reached=True residual=' <<<"$out" || fail "reach"
grep -q '^python_arm/arm: reached=False residual=1.45 m' <<<"$out" \
  || fail "unreachable"
grep -q '^humanoid/left_arm: reached=True' <<<"$out" || fail "humanoid"
grep -q '^tail/tail: reached=True .* solver=SOLVER_FABRIK' <<<"$out" || fail "tail"
grep -q '^tick npc-1: 2/2 goals reached, 4 joints turned$' <<<"$out" \
  || fail "tick"
grep -q "^tick npc-2: goals failed: characters\[1\].goals\[0\].chain: rig 'humanoid' has no chain 'tentacle'" \
  <<<"$out" || fail "tick error"
grep -q "^error: NOT_FOUND: goals\[0\].chain: rig 'python_arm' has no chain 'tentacle'" \
  <<<"$out" || fail "error path"
# The field violations (google.rpc.BadRequest in the status details).
grep -q "^  field goals\[0\].chain: rig 'python_arm' has no chain 'tentacle'" \
  <<<"$out" || fail "NOT_FOUND field violation"
grep -q "^error: INVALID_ARGUMENT: goals\[0\].target: not finite" <<<"$out" \
  || fail "invalid target"
grep -q "^  field goals\[0\].target: not finite" <<<"$out" \
  || fail "INVALID_ARGUMENT field violation"
stop_server
echo "python example: ok"
