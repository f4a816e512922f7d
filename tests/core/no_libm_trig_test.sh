#!/usr/bin/env bash
# The core's solver paths call no host libm elementary function whose bits
# depend on the CPU (glibc picks FMA or plain builds at load time): its
# objects reference none of them; ik/base/trig.h is what they call.
#   no_libm_trig_test.sh NM LIBIK_CORE
set -euo pipefail
nm=$1
library=$2
pattern='^(__)?(sin|cos|tan|sincos|asin|acos|atan|atan2|sinh|cosh|tanh|exp|exp2|expm1|log|log2|log10|log1p|pow|cbrt|hypot)(f|l)?(_finite)?(@.*)?$'
found=$("$nm" --undefined-only --format=just-symbols "$library" |
  grep -E "$pattern" | sort -u || true)
if [[ -n "$found" ]]; then
  echo "FAIL: the core references the host libm's"
  echo "$found" | sed 's/^/  /'
  echo "call ik/base/trig.h instead"
  exit 1
fi
echo "PASS: no libm elementary function referenced by $(basename "$library")"
