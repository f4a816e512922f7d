#!/usr/bin/env bash
# ikctl render against a live ikd: the SVG parses, every joint dot sits on
# the picture's own projection of forward kinematics computed by
# check_render.py (rest pose, and a solved arm), targets are marked reached
# or not, grounding draws a contact and a normal per leg, and a dynamics
# trail has a point per step. Usage: render_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains"
ik() { "$IKCTL" --server="$SERVER" "$@"; }
CHECK="$REPO/tests/e2e/check_render.py"

ik --json rigs get humanoid >"$WORK/humanoid.json" || fail "rigs get"
ik render --rig=humanoid --svg="$WORK/rest.svg" || fail "render rest"
/usr/bin/python3 "$CHECK" "$WORK/rest.svg" "$WORK/humanoid.json" || fail "rest pose"

goal=(--chain=left_arm --target=0.45,1.2,0.25)
ik render --rig=humanoid --svg="$WORK/solved.svg" "${goal[@]}" || fail "render solved"
ik --json solve --rig=humanoid "${goal[@]}" >"$WORK/solve.json" || fail "solve"
/usr/bin/python3 "$CHECK" "$WORK/solved.svg" "$WORK/humanoid.json" "$WORK/solve.json" \
  || fail "solved pose"
[[ $(grep -c 'class="target reached"' "$WORK/solved.svg") == 2 ]] || fail "reached mark"

ik render --rig=humanoid --svg="$WORK/far.svg" --chain=left_arm \
  --target=1.5,1.2,0.25 || fail "render unreached"
[[ $(grep -c 'class="target unreached"' "$WORK/far.svg") == 2 ]] || fail "unreached mark"

out=$(ik render --rig=humanoid --svg="$WORK/all.svg" "${goal[@]}" \
  --terrain=stairs --root=0,0,0.45 --trail_steps=30) || fail "render all: $out"
echo "$out"
[[ $(grep -c 'class="contact"' "$WORK/all.svg") == 4 ]] || fail "contacts (2 legs x 2 views)"
[[ $(grep -c 'class="normal"' "$WORK/all.svg") == 4 ]] || fail "normals"
/usr/bin/python3 - "$WORK/all.svg" <<'PY' || fail "trail"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
trails = root.findall(".//{http://www.w3.org/2000/svg}polyline[@class='trail']")
assert len(trails) == 2, len(trails)  # the ponytail, in each view
assert all(len(t.get("points").split()) == 30 for t in trails)
assert root.find(".//{http://www.w3.org/2000/svg}g[@class='scale-bar']") is not None
PY
stop_server
echo "render: ok"
