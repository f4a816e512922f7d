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
# The tick sends its poses in the compact form, float32 by default: 28
# joints of 16 bytes, plus the field's tag and length. Quantized: 6 bytes a
# joint; the Pose of doubles: 32.
grep -q '^tick: 28 joints a character as float (451 bytes of pose)$' <<<"$out" \
  || fail "compact tick"
for form in quantized:171 pose:899; do
  other=$(/usr/bin/python3 "$REPO/examples/python/ik_client.py" \
    --server="$SERVER" --stubs="$WORK/stubs" --pose-form=${form%:*}) \
    || fail "python client --pose-form=${form%:*}: $other"
  grep -q "^tick: 28 joints a character as ${form%:*} (${form#*:} bytes of pose)$" \
    <<<"$other" || fail "${form%:*} tick: $other"
  grep -q '^tick npc-1: 2/2 goals reached, 4 joints turned$' <<<"$other" \
    || fail "${form%:*} tick: $other"
done
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

# The same example against an ikd with TLS, client certificates and tokens.
"$REPO/tests/e2e/make_certs.sh" "$WORK/certs"
printf 'read %s\nadmin %s\n' read-token-0123456789abcdef \
  admin-token-0123456789abcdef >"$WORK/tokens"
echo admin-token-0123456789abcdef >"$WORK/admin.token"
echo read-token-0123456789abcdef >"$WORK/read.token"
C=$WORK/certs
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --tls_cert="$C/server.crt" --tls_key="$C/server.key" \
  --tls_client_ca="$C/ca.crt" --token_file="$WORK/tokens"
grep -q '^ikd: TLS, client certificates required' "$LOG" || fail "TLS log line"
run() {
  /usr/bin/python3 "$REPO/examples/python/ik_client.py" --server="$SERVER" \
    --stubs="$WORK/stubs" "$@" 2>&1
}
secure=(--ca="$C/ca.crt" --cert="$C/client.crt" --key="$C/client.key")
out=$(run "${secure[@]}" --token-file="$WORK/admin.token") \
  || fail "python client over mutual TLS with an admin token: $out"
grep -q '^registered python_arm sha256:' <<<"$out" || fail "secure register"
grep -q '^tick npc-1: 2/2 goals reached' <<<"$out" || fail "secure tick"
out=$(IKD_TOKEN=admin-token-0123456789abcdef run "${secure[@]}") \
  || fail "token from IKD_TOKEN: $out"
if out=$(run "${secure[@]}"); then fail "no token: accepted"; fi
grep -q 'UNAUTHENTICATED' <<<"$out" || fail "no token: $out"
if out=$(run "${secure[@]}" --token-file="$WORK/read.token"); then
  fail "read token registered a rig"
fi
grep -q 'PERMISSION_DENIED' <<<"$out" || fail "read token: $out"
if out=$(run --ca="$C/ca.crt" --token-file="$WORK/admin.token"); then
  fail "no client certificate: accepted"
fi
grep -q 'UNAVAILABLE' <<<"$out" || fail "no client certificate: $out"
stop_server
echo "python example: ok"
