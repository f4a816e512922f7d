#!/usr/bin/env bash
# The Python client installed as a Debian 12 user installs it: pip refuses
# the system's Python (PEP 668, externally-managed-environment), so into a
# virtual environment that sees Debian's python3-grpcio and python3-protobuf
# (--system-site-packages), offline (--no-index: nothing is downloaded). A
# program in an empty directory then imports ikd_client from the venv alone
# (no PYTHONPATH) and solves against a live ikd.
# Usage: python_venv_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1

# A copy of the package with its stubs generated in, as the README says.
cp -r "$REPO/client/python" "$WORK/pkg"
rm -rf "$WORK/pkg/ikd_client/_gen" "$WORK/pkg/build" "$WORK"/pkg/*.egg-info
"$REPO/examples/python/generate_stubs.sh" "$WORK/pkg/ikd_client/_gen" >/dev/null
/usr/bin/python3 -m venv --system-site-packages "$WORK/venv" \
  || fail "python3 -m venv (Debian's python3-venv)"
"$WORK/venv/bin/python" -m pip install --no-deps --no-build-isolation \
  --no-index "$WORK/pkg" >"$WORK/pip.log" 2>&1 \
  || fail "pip install into the venv: $(cat "$WORK/pip.log")"

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains"
mkdir -p "$WORK/empty"
cd "$WORK/empty"
out=$(env -u PYTHONPATH -u IKD_CLIENT_STUBS "$WORK/venv/bin/python" - \
  "$SERVER" <<'PY' 2>&1) || fail "the installed package: $out"
import sys
import ikd_client
from ikd_client import Client, pb
assert "/venv/" in ikd_client.__file__, ikd_client.__file__
with Client(sys.argv[1]) as client:
    answer = client.solve_chain(pb.SolveChainRequest(
        rig="humanoid",
        goals=[pb.ChainGoal(chain="left_arm",
                            target=pb.Vec3(x=0.45, y=1.2, z=0.15))]))
    print("reached", answer.results[0].reached)
PY
[[ "$out" == *"reached True"* ]] || fail "solve from the venv: $out"
stop_server
echo "python venv: ok"
