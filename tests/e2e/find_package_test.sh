#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds tests/e2e/consumer with
# find_package(ik) against it, and runs it against a live ikd.
# Usage: find_package_test.sh BUILD_DIR IKD
source "$(dirname "$0")/lib.sh"
BUILD=$1
IKD=$2
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null || fail "install"
[[ -f "$WORK/prefix/lib/cmake/ik/ikConfig.cmake" ]] || fail "no ikConfig.cmake"
cmake -S "$REPO/tests/e2e/consumer" -B "$WORK/consumer" \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null \
  || fail "configure consumer"
cmake --build "$WORK/consumer" -j2 >"$WORK/consumer.log" 2>&1 \
  || { cat "$WORK/consumer.log"; fail "build consumer"; }

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs"
out=$("$WORK/consumer/consumer" "$SERVER") || fail "consumer: $out"
echo "$out"
grep -qx 'rig humanoid' <<<"$out" || fail "humanoid not listed"
grep -qx 'reached yes' <<<"$out" || fail "not reached"
stop_server
echo "find_package consumer: ok"
