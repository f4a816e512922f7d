#!/usr/bin/env bash
# The core's layering, checked on the preprocessor's view: a translation unit
# that includes only one low-level solver's header must not pull in the rig,
# grounding or dynamics headers; one that includes only the rig's headers
# must not pull in grounding, geometry, dynamics or the character; and each
# header must compile on its own.
# The same rule holds for every source and private header by folder: nothing
# under solvers/ or base/ includes a rig, ground, geometry, dynamics or
# character header, nothing under rig/ a ground, geometry, dynamics or
# character one.
# Usage: header_layers_test.sh CXX CORE_INCLUDE
set -euo pipefail
cxx=$1
include=$2
core=$(dirname "$include")
solver_forbidden='ik/(rig|ground|geometry|dynamics|character)/[a-z_]+\.h|ik/solvers/swivel\.h'
rig_forbidden='ik/(ground|geometry|dynamics|character)/[a-z_]+\.h'
status=0
# check HEADER FORBIDDEN_REGEX
check() {
  local header=$1 forbidden=$2 deps bad
  if ! echo "#include \"ik/$header.h\"" |
    "$cxx" -std=c++17 -fsyntax-only -x c++ -I"$include" -; then
    echo "ik/$header.h does not compile on its own"
    status=1
  fi
  deps=$(echo "#include \"ik/$header.h\"" |
    "$cxx" -std=c++17 -x c++ -M -I"$include" - | tr ' \\' '\n\n' |
    grep -o 'ik/[a-z_]*/[a-z_]*\.h' | sort -u)
  bad=$(grep -E "^($forbidden)\$" <<<"$deps" || true)
  if [[ -n "$bad" ]]; then
    echo "ik/$header.h pulls in: $(tr '\n' ' ' <<<"$bad")"
    status=1
  else
    echo "ik/$header.h includes only: $(tr '\n' ' ' <<<"$deps")"
  fi
}
for header in solvers/two_bone solvers/fabrik solvers/ccd solvers/torque \
  base/joint_limits; do
  check "$header" "$solver_forbidden"
done
for header in rig/rig rig/solve_chain rig/forward_kinematics; do
  check "$header" "$rig_forbidden"
done
# check_sources FOLDER LAYERS: no direct include, public ("ik/rig/...") or
# private ("rig/..."), of a header in LAYERS from the folder's public headers
# and sources.
check_sources() {
  local folder=$1 layers=$2 bad
  bad=$(grep -HnE "#include \"(ik/)?($layers)/[a-z_]+\.h\"" \
    "$include/ik/$folder"/*.h "$core/src/$folder"/* || true)
  if [[ -n "$bad" ]]; then
    echo "ik/$folder reaches above its layer:"
    echo "$bad"
    status=1
  else
    echo "$folder/: every include stays within its layer"
  fi
}
check_sources base 'solvers|rig|ground|geometry|dynamics|character'
check_sources solvers 'rig|ground|geometry|dynamics|character'
check_sources rig 'ground|geometry|dynamics|character'
exit $status
