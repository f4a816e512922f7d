#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds tests/e2e/consumer with
# find_package(ik) against it, and runs it against a live ikd. The installed
# ikctl inspects a recording with the page installed beside it (the source
# tree moved out of its reach: --assets is not given).
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

# The installed ikctl serves its installed page.
"$REPO/client/inspector/install.sh" >/dev/null
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null || fail "install"
[[ -f "$WORK/prefix/share/ikd/inspector/index.html" ]] || fail "no installed page"
# Marked, so the page served is known to be the installed one.
echo "<!-- installed copy -->" >>"$WORK/prefix/share/ikd/inspector/index.html"
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --record_dir="$WORK/rec"
"$WORK/prefix/bin/ikctl" --server="$SERVER" tick --rig=humanoid \
  --characters=2 --ticks=2 >/dev/null || fail "tick"
stop_server
"$WORK/prefix/bin/ikctl" inspect "$WORK/rec" >"$WORK/inspect.out" \
  2>"$WORK/inspect.err" &
inspect_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n '1s/^inspector: \(http:.*\)$/\1/p' "$WORK/inspect.out")
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || fail "installed ikctl inspect: $(cat "$WORK/inspect.err")"
/usr/bin/python3 - "${url%/}" <<'PY' || fail "the installed inspector's pages"
import sys, urllib.request
base = sys.argv[1]
page = urllib.request.urlopen(base + "/").read().decode()
assert "installed copy" in page, "the page is not the installed one"
for path in ("/inspector.js", "/three/three.module.js"):
    urllib.request.urlopen(base + path).read()
PY
kill "$inspect_pid"
wait "$inspect_pid" 2>/dev/null || true
echo "find_package consumer: ok"
