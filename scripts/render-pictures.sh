#!/usr/bin/env bash
# Regenerates the README's pictures (docs/pictures/*.svg) with `ikctl
# render` against an ikd started here on a free port. Needs a build
# (scripts/build.sh): scripts/render-pictures.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ikd=$build/server/ikd
ikctl=$build/client/ikctl
out=docs/pictures
mkdir -p "$out"
log=$(mktemp)
"$ikd" --listen=127.0.0.1:0 --rig_dir=examples/rigs \
  --terrain_dir=examples/terrains 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT
server=""
for _ in $(seq 1 100); do
  server=$(sed -n 's/^ikd: listening on \([^ ]*\) .*/\1/p' "$log")
  [[ -n $server ]] && break
  sleep 0.1
done
[[ -n $server ]] || { cat "$log" >&2; exit 1; }
ik() { "$ikctl" --server="$server" "$@"; }

# The bundled humanoid on the stairs: feet grounded (contacts and normals),
# the left hand on a target, the ponytail's trail over 90 steps.
ik render --rig=humanoid --svg="$out/humanoid.svg" --terrain=stairs \
  --root=0,0,0.45 --chain=left_arm --target=0.45,1.2,0.75 --trail_steps=90
# A target out of reach: the arm points at it, the cross says not reached.
ik render --rig=humanoid --svg="$out/humanoid_unreached.svg" \
  --chain=right_arm --target=-1.2,1.6,0.6
# A character brought from glTF (examples/gltf/hero.gltf), its arm solved.
ik rigs import examples/gltf/hero.gltf --name=hero --register 2>/dev/null
ik render --rig=hero --svg="$out/hero.svg" --chain=left_arm \
  --target=0.3,1.1,0.35
