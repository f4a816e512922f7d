#!/usr/bin/env bash
# The core's layering, checked on the preprocessor's view: a translation unit
# that includes only one low-level solver's header must not pull in the rig,
# grounding or dynamics headers, and must compile on its own.
# Usage: header_layers_test.sh CXX CORE_INCLUDE [HEADER...]
set -euo pipefail
cxx=$1
include=$2
forbidden='ik/(rig|ground|geometry|dynamics)/[a-z_]+\.h|ik/solvers/swivel\.h'
shift 2
headers=("$@")
[[ ${#headers[@]} -gt 0 ]] || headers=(solvers/two_bone solvers/fabrik solvers/ccd solvers/torque base/joint_limits)
status=0
for header in "${headers[@]}"; do
  if ! echo "#include \"ik/$header.h\"" |
    "$cxx" -std=c++17 -fsyntax-only -x c++ -I"$include" -; then
    echo "ik/$header.h does not compile on its own"
    status=1
  fi
  deps=$(echo "#include \"ik/$header.h\"" |
    "$cxx" -std=c++17 -x c++ -M -I"$include" - | tr ' \\' '\n\n' |
    grep -o 'ik/[a-z_]*/[a-z_]*\.h' | sort -u)
  bad=$(grep -E "^$forbidden\$" <<<"$deps" || true)
  if [[ -n "$bad" ]]; then
    echo "ik/$header.h pulls in: $(tr '\n' ' ' <<<"$bad")"
    status=1
  else
    echo "ik/$header.h includes only: $(tr '\n' ' ' <<<"$deps")"
  fi
done
exit $status
