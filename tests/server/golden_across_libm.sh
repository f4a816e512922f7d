#!/usr/bin/env bash
# Same bits on every machine: replays the golden request set with glibc free to
# pick its FMA/AVX2 builds of the math functions and with those masked
# (GLIBC_TUNABLES hwcaps, what a CPU without FMA gets), and compares the
# answers' text forms bit for bit. libm_probe first shows that the mask changes
# the host libm's own results on this CPU (else there is nothing to compare:
# skipped) and that it leaves the core's trig alone.
#   golden_across_libm.sh LIBM_PROBE GOLDEN_ANSWERS_TEST
set -euo pipefail
probe=$1
golden=$2
mask="glibc.cpu.hwcaps=-AVX2,-FMA"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$probe" >"$work/probe.free"
GLIBC_TUNABLES=$mask "$probe" >"$work/probe.masked"
libm_free=$(grep '^libm' "$work/probe.free")
libm_masked=$(grep '^libm' "$work/probe.masked")
if [[ "$libm_free" == "$libm_masked" ]]; then
  echo "SKIP: masking FMA/AVX2 does not change this CPU's libm ($libm_free);"
  echo "      nothing to compare here"
  exit 77
fi
echo "host libm: $libm_free free, $libm_masked masked"
core_free=$(grep '^core' "$work/probe.free")
core_masked=$(grep '^core' "$work/probe.masked")
if [[ "$core_free" != "$core_masked" ]]; then
  echo "FAIL: the core's trig changed with the mask: $core_free vs $core_masked"
  exit 1
fi
echo "core trig: $core_free both ways"

IKD_GOLDEN_TEXT="$work/free.txt" "$golden" --gtest_brief=1 >"$work/free.log" 2>&1 ||
  { cat "$work/free.log"; echo "FAIL: golden answers (libm free)"; exit 1; }
GLIBC_TUNABLES=$mask IKD_GOLDEN_TEXT="$work/masked.txt" "$golden" \
  --gtest_brief=1 >"$work/masked.log" 2>&1 ||
  { cat "$work/masked.log"; echo "FAIL: golden answers (FMA/AVX2 masked)"; exit 1; }
if ! cmp -s "$work/free.txt" "$work/masked.txt"; then
  diff "$work/free.txt" "$work/masked.txt" | head -20
  echo "FAIL: the golden answers differ between the two libm builds"
  exit 1
fi
echo "PASS: $(wc -l <"$work/free.txt") golden answers bit-identical with and" \
  "without glibc's FMA/AVX2 math"
