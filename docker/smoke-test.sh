#!/usr/bin/env bash
# Smoke test of the ikd container image, end to end:
#   1. scripts/make-base-image.sh (debian:bookworm{,-slim} from debootstrap, once)
#   2. podman build -f docker/Dockerfile -t ikd:smoke .   (never pulls); the
#      inspector's page and three.js in the image
#   3. podman run, publishing 50051 on a free loopback port
#   4. the host's ikctl: `health` until SERVING, then a `solve` that must reach
#      and a `ground` on the bundled stairs that must ground both feet
#   5. the image's own HEALTHCHECK (podman healthcheck run)
#   6. podman stop --time 10: ikd (PID 1) must exit 0 on SIGTERM and log its shutdown
#   7. a rig registered in step 4 is served by a new container on the same
#      state volume (/var/lib/ikd), then that one is stopped too
#   8. a third container on that volume with mutual TLS, tokens and metrics
#      (certificates from tests/e2e/make_certs.sh): ikctl over TLS with a read
#      token solves, without a token is UNAUTHENTICATED, a read token may not
#      delete, an admin token may; plaintext is refused; the HEALTHCHECK over
#      TLS (IKCTL_FLAGS); /metrics counts the calls
# The containers and the volume are always removed. Exit 0 on success, non-zero with a message.
#
#   docker/smoke-test.sh [path/to/host/ikctl]      (or IKCTL=path)
#
# Runs as root (rootful podman). Needs podman, runc, debootstrap: see
# scripts/setup.sh --test. Settings (environment):
#   IKD_SMOKE_IMAGE          image tag to build            (ikd:smoke)
#   IKD_SMOKE_BUILD_TIMEOUT  seconds for podman build       (2700)
#   IKD_SMOKE_START_TIMEOUT  seconds until SERVING          (60)
#   IKD_SMOKE_NETWORK        "host" runs the container with --network=host and
#                            --listen on the free port, instead of -p publishing
#   IKD_SMOKE_KEEP_LOGS      1 keeps the log directory even on success
#   IKD_SKIP_CONTAINER       1 skips the test (exit 77, ctest's SKIP_RETURN_CODE),
#                            except under CI=true, where it always runs
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
image=${IKD_SMOKE_IMAGE:-ikd:smoke}
build_timeout=${IKD_SMOKE_BUILD_TIMEOUT:-2100}
start_timeout=${IKD_SMOKE_START_TIMEOUT:-60}
network=${IKD_SMOKE_NETWORK:-publish}
ctr=ikd-smoke-$$
volume=ikd-smoke-state-$$

say() { echo "smoke-test: $*"; }
fail() { echo "smoke-test: FAIL: $*" >&2; exit 1; }
elapsed() { echo $(( $(date +%s) - $1 )); }

if [[ "${IKD_SKIP_CONTAINER:-0}" == 1 && "${CI:-}" != true ]]; then
  say "skipped (IKD_SKIP_CONTAINER=1)"
  exit 77
fi

# --- Preconditions -------------------------------------------------------------
ikctl=${1:-${IKCTL:-}}
if [[ -z "$ikctl" ]]; then
  for c in "$repo/build/client/ikctl" "$repo/build/ikctl"; do
    [[ -x "$c" ]] && { ikctl=$c; break; }
  done
fi
[[ -n "$ikctl" ]] || fail "no ikctl: pass the host's ikctl as \$1 or IKCTL"
[[ -x "$ikctl" ]] || fail "ikctl '$ikctl' is not executable"
ikctl=$(cd "$(dirname "$ikctl")" && pwd)/$(basename "$ikctl")
[[ $(id -u) -eq 0 ]] || fail "must run as root (rootful podman)"
command -v podman >/dev/null || fail "podman not installed (scripts/setup.sh --test)"
# crun (podman's default) cannot run containers on a cgroup v1/hybrid host
# such as this sandbox ("cgroups in hybrid mode not supported"); runc can, and
# works on cgroup v2 too. crun is used only where runc is missing and the host
# has the unified (v2-only) hierarchy.
runtime_name=runc
runtime=$(command -v runc || true)
if [[ -z "$runtime" ]]; then
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && command -v crun >/dev/null; then
    runtime_name=crun runtime=$(command -v crun)
  else
    fail "runc not installed (apt-get install runc; scripts/setup.sh --test): podman's crun cannot run on this host's cgroup v1/hybrid hierarchy"
  fi
fi

workdir=$(mktemp -d "${TMPDIR:-/tmp}/ikd-smoke.XXXXXX")
ok=0
cleanup() {
  local rc=$?
  if podman container exists "$ctr" 2>/dev/null; then
    if [[ $ok -ne 1 ]]; then
      echo "----- container log ($ctr) -----" >&2
      timeout 20 podman logs "$ctr" 2>&1 | tail -n 40 >&2 || true
      echo "--------------------------------" >&2
    fi
    timeout 60 podman rm -f --time 2 "$ctr" >/dev/null 2>&1 || true
  fi
  for c in "$ctr-again" "$ctr-secure"; do
    if podman container exists "$c" 2>/dev/null; then
      timeout 60 podman rm -f --time 2 "$c" >/dev/null 2>&1 || true
    fi
  done
  if podman volume exists "$volume" 2>/dev/null; then
    timeout 60 podman volume rm -f "$volume" >/dev/null 2>&1 || true
  fi
  if [[ $ok -eq 1 && "${IKD_SMOKE_KEEP_LOGS:-0}" != 1 ]]; then
    rm -rf "$workdir"
  else
    echo "smoke-test: logs kept in $workdir" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- podman settings for this sandbox and a plain Debian 12 root alike ------------
# - runc (or crun on a cgroup v2-only host), see above.
# - Explicit ulimits: podman's default RLIMIT_NOFILE (1048576) is above the hard
#   limit a sandboxed root has here (20000), and setrlimit then fails at start.
# - cgroupfs + file events: no systemd / journald needed.
# Storage (overlay on the host filesystem) and networking (netavark bridge, also
# for RUN apt-get during the build) work with their defaults.
export CONTAINERS_CONF=$workdir/containers.conf
cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "$runtime_name"
cgroup_manager = "cgroupfs"
events_logger = "file"

[engine.runtimes]
$runtime_name = ["$runtime"]
EOF

# --- 1. Base images --------------------------------------------------------------
t=$(date +%s)
timeout 600 "$repo/scripts/make-base-image.sh" || fail "scripts/make-base-image.sh failed"
say "base images ready ($(elapsed "$t")s)"

# --- 2. Build --------------------------------------------------------------------
t=$(date +%s)
# three.js for the image's inspector page (npm ci, when not done yet).
"$repo/client/inspector/install.sh" >"$workdir/npm.log" 2>&1 \
  || { cat "$workdir/npm.log" >&2; fail "client/inspector/install.sh failed"; }
old_id=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
say "podman build -f docker/Dockerfile -t $image (log: $workdir/build.log)"
if ! (cd "$repo" && timeout "$build_timeout" podman build --pull=never --format=docker \
        -f docker/Dockerfile -t "$image" .) >"$workdir/build.log" 2>&1; then
  tail -n 60 "$workdir/build.log" >&2
  fail "podman build failed or took over ${build_timeout}s"
fi
new_id=$(podman image inspect --format '{{.Id}}' "$image")
# Drop the image this build replaced (if nothing else uses it).
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  podman image rm "$old_id" >/dev/null 2>&1 || true
fi
say "built $image ${new_id:0:12} ($(elapsed "$t")s, $(( $(podman image inspect --format '{{.Size}}' "$image") / 1024 / 1024 )) MiB)"

# The inspector's page and three.js where the image's ikctl finds them.
for f in index.html inspector.js node_modules/three/build/three.module.js; do
  podman run --rm --pull=never --entrypoint /bin/sh "$image" -c \
    "test -f /usr/local/share/ikd/inspector/$f" \
    || fail "the image has no /usr/local/share/ikd/inspector/$f"
done
say "the inspector's page is in the image"

# --- 3. Run ----------------------------------------------------------------------
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
  local p i
  for i in $(seq 1 100); do
    p=$(( 20000 + RANDOM % 30000 ))
    port_free "$p" && { echo "$p"; return 0; }
  done
  return 1
}
port=$(pick_port) || fail "no free loopback port found"
if [[ "$network" == host ]]; then
  # The image's default --listen comes first; a later flag wins in Abseil.
  run_args=(--network=host)
  ikd_args=("--listen=127.0.0.1:$port")
else
  run_args=(-p "127.0.0.1:$port:50051")
  ikd_args=()
fi
# Without systemd podman cannot set up the HEALTHCHECK's timer (and logs errors
# about it); step 5 runs the check by hand instead.
[[ -d /run/systemd/system ]] || run_args+=(--health-interval=disable)
run_args+=(-v "$volume:/var/lib/ikd")
say "podman run ${run_args[*]} $image ${ikd_args[*]}"
timeout 120 podman run -d --pull=never --name "$ctr" "${run_args[@]}" "$image" "${ikd_args[@]}" \
  >"$workdir/run.out" 2>&1 || { cat "$workdir/run.out" >&2; fail "podman run failed"; }

# --- 4. Health, then a solve -----------------------------------------------------------
server=127.0.0.1:$port
# wait_serving CONTAINER: until ikctl health says SERVING (bounded).
wait_serving() {
  local t deadline state
  t=$(date +%s)
  deadline=$(( t + start_timeout ))
  while :; do
    out=$(timeout 5 "$ikctl" --server="$server" health 2>&1 || true)
    if grep -Eq '(^|[^A-Z_])SERVING' <<<"$out"; then break; fi
    state=$(podman inspect --format '{{.State.Status}}' "$1" 2>/dev/null || echo gone)
    [[ "$state" == running ]] || fail "container $1 is $state before it served (ikctl: $out)"
    (( $(date +%s) < deadline )) || fail "$1 not SERVING after ${start_timeout}s (ikctl: $out)"
    sleep 1
  done
  say "health: $out ($(elapsed "$t")s after start)"
}
wait_serving "$ctr"

# A rig registered over the API, for step 7.
python3 - "$repo/examples/rigs/tail.json" "$workdir/smoke_tail.json" <<'PY'
import json, sys
rig = json.load(open(sys.argv[1]))
rig["name"] = "smoke_tail"
json.dump(rig, open(sys.argv[2], "w"))
PY
out=$(timeout 20 "$ikctl" --server="$server" rigs register "$workdir/smoke_tail.json" 2>&1) ||
  fail "ikctl rigs register failed: $out"
say "registered smoke_tail: $out"

solve=(solve --rig humanoid --chain left_arm --target 0.45,1.25,0.2 --json)
out=$(timeout 20 "$ikctl" --server="$server" "${solve[@]}" 2>&1) ||
  fail "ikctl ${solve[*]} failed: $out"
echo "$out" | sed 's/^/  | /'
grep -Eq '"reached": *true' <<<"$out" || fail "solve did not print \"reached\": true"
say "solve: reached"

ground=(ground --rig humanoid --terrain stairs --root 0,0,0.45 --json)
out=$(timeout 20 "$ikctl" --server="$server" "${ground[@]}" 2>&1) ||
  fail "ikctl ${ground[*]} failed: $out"
[[ $(grep -Ec '"grounded": *true' <<<"$out") -eq 2 ]] ||
  fail "ground on the bundled stairs: both feet not grounded: $out"
say "ground: both feet on the bundled stairs"

# --- 5. The image's own HEALTHCHECK (ikctl inside the container) -----------------------
if [[ "$network" == host ]]; then
  say "image HEALTHCHECK skipped (it checks port 50051; ikd listens on $port here)"
else
  hc=$(timeout 30 podman healthcheck run "$ctr" 2>&1) && hc_rc=0 || hc_rc=$?
  [[ $hc_rc -eq 0 ]] || fail "image HEALTHCHECK failed (rc $hc_rc): $hc"
  say "image HEALTHCHECK: ${hc:-healthy}"
fi

# --- 6. Graceful stop ------------------------------------------------------------
t=$(date +%s)
# (Without systemd, podman 4.3 logs an error about the HEALTHCHECK timer here:
# harmless, so stderr goes to a file unless the stop fails.)
timeout 60 podman stop --time 10 "$ctr" >/dev/null 2>"$workdir/stop.err" ||
  { cat "$workdir/stop.err" >&2; fail "podman stop failed"; }
code=$(podman inspect --format '{{.State.ExitCode}}' "$ctr")
logs=$(timeout 20 podman logs "$ctr" 2>&1 || true)
[[ "$code" == 0 ]] ||
  fail "ikd exited $code on SIGTERM (137 = killed after the 10s grace period)"
grep -Eiq 'shut(ting)? ?down|stopp(ed|ing)|terminat' <<<"$logs" ||
  fail "ikd did not log its shutdown"
say "stopped in $(elapsed "$t")s, exit code 0; ikd logged:"
grep -Ei 'shut(ting)? ?down|stopp(ed|ing)|terminat|signal' <<<"$logs" | tail -n 5 | sed 's/^/  | /'

# --- 7. The registration survives: a new container on the same volume ------------
say "podman run (again) on volume $volume"
timeout 120 podman run -d --pull=never --name "$ctr-again" "${run_args[@]}" "$image" "${ikd_args[@]}" \
  >"$workdir/run-again.out" 2>&1 || { cat "$workdir/run-again.out" >&2; fail "second podman run failed"; }
wait_serving "$ctr-again"
out=$(timeout 20 "$ikctl" --server="$server" rigs list 2>&1) || fail "ikctl rigs list failed: $out"
grep -q '^smoke_tail ' <<<"$out" ||
  fail "smoke_tail, registered before the restart, is gone: $out"
logs=$(timeout 20 podman logs "$ctr-again" 2>&1 || true)
grep -q 'ikd: state from /var/lib/ikd: 1 rigs' <<<"$logs" ||
  fail "ikd did not say it reloaded the state: $logs"
say "smoke_tail survived the restart ($(grep 'ikd: state from' <<<"$logs"))"
# stop_cleanly CONTAINER: podman stop; ikd must exit 0 on the SIGTERM.
stop_cleanly() {
  timeout 60 podman stop --time 10 "$1" >/dev/null 2>>"$workdir/stop.err" ||
    { cat "$workdir/stop.err" >&2; fail "podman stop $1 failed"; }
  [[ $(podman inspect --format '{{.State.ExitCode}}' "$1") == 0 ]] ||
    fail "ikd in $1 did not exit 0 on SIGTERM"
}
stop_cleanly "$ctr-again"

# --- 8. TLS with client certificates, tokens, metrics, the same state volume ----
secrets=$workdir/secrets
"$repo/tests/e2e/make_certs.sh" "$secrets" || fail "make_certs.sh failed"
read_token=smoke-read-0123456789abcdef
admin_token=smoke-admin-0123456789abcdef
printf 'read %s\nadmin %s\n' "$read_token" "$admin_token" >"$secrets/tokens"
chmod 0755 "$secrets"
chmod 0644 "$secrets"/*   # test material, read by the image's uid 10001
mport=$(pick_port) || fail "no free loopback port for the metrics"
secure_args=("${run_args[@]}" -v "$secrets:/etc/ikd:ro"
  -e "IKCTL_FLAGS=--tls_ca=/etc/ikd/ca.crt --tls_cert=/etc/ikd/client.crt --tls_key=/etc/ikd/client.key --tls_server_name=localhost")
secure_flags=(--tls_cert=/etc/ikd/server.crt --tls_key=/etc/ikd/server.key
  --tls_client_ca=/etc/ikd/ca.crt --token_file=/etc/ikd/tokens)
if [[ "$network" == host ]]; then
  secure_flags+=("--metrics_listen=127.0.0.1:$mport")
else
  secure_args+=(-p "127.0.0.1:$mport:9464")
  secure_flags+=(--metrics_listen=0.0.0.0:9464)
fi
say "podman run (TLS, tokens, metrics) on volume $volume"
timeout 120 podman run -d --pull=never --name "$ctr-secure" "${secure_args[@]}" "$image" \
  "${ikd_args[@]}" "${secure_flags[@]}" >"$workdir/run-secure.out" 2>&1 ||
  { cat "$workdir/run-secure.out" >&2; fail "third podman run failed"; }
tls=(--server="$server" --tls_ca="$secrets/ca.crt" --tls_cert="$secrets/client.crt"
  --tls_key="$secrets/client.key" --tls_server_name=localhost)
echo "$read_token" >"$secrets/read.token"
echo "$admin_token" >"$secrets/admin.token"
t=$(date +%s)
until out=$(timeout 5 "$ikctl" "${tls[@]}" health 2>&1) && grep -q SERVING <<<"$out"; do
  state=$(podman inspect --format '{{.State.Status}}' "$ctr-secure" 2>/dev/null || echo gone)
  [[ "$state" == running ]] || fail "the TLS container is $state (ikctl: $out)"
  (( $(date +%s) < t + start_timeout )) || fail "TLS container not SERVING: $out"
  sleep 1
done
out=$(timeout 20 "$ikctl" "${tls[@]}" --token_file="$secrets/read.token" rigs list 2>&1) ||
  fail "rigs list over mutual TLS with a read token: $out"
grep -q '^smoke_tail ' <<<"$out" || fail "the state volume's smoke_tail is missing: $out"
out=$(timeout 20 "$ikctl" "${tls[@]}" --token_file="$secrets/read.token" "${solve[@]}" 2>&1) ||
  fail "solve over mutual TLS with a read token: $out"
grep -Eq '"reached": *true' <<<"$out" || fail "TLS solve did not reach: $out"
out=$(timeout 20 "$ikctl" "${tls[@]}" "${solve[@]}" 2>&1) && fail "solve without a token: $out"
grep -q UNAUTHENTICATED <<<"$out" || fail "solve without a token: $out"
out=$(timeout 20 "$ikctl" "${tls[@]}" --token_file="$secrets/read.token" rigs delete smoke_tail 2>&1) &&
  fail "a read token deleted a rig: $out"
grep -q PERMISSION_DENIED <<<"$out" || fail "delete with a read token: $out"
out=$(timeout 20 "$ikctl" "${tls[@]}" --token_file="$secrets/admin.token" rigs delete smoke_tail 2>&1) ||
  fail "delete with an admin token: $out"
out=$(timeout 10 "$ikctl" --server="$server" health 2>&1) && fail "plaintext health on TLS: $out"
say "TLS + client certificates + tokens: read solves, read may not delete, admin deletes, plaintext refused"
if [[ "$network" != host ]]; then
  hc=$(timeout 30 podman healthcheck run "$ctr-secure" 2>&1) ||
    fail "image HEALTHCHECK with IKCTL_FLAGS (TLS) failed: $hc"
  say "image HEALTHCHECK over TLS: ${hc:-healthy}"
fi
metrics=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "http://127.0.0.1:$mport/metrics") || fail "GET /metrics failed"
grep -q '^ikd_calls_total{code="OK",method="SolveChain"} 1$' <<<"$metrics" ||
  fail "metrics: no SolveChain OK = 1: $(grep ikd_calls_total <<<"$metrics")"
grep -q '^ikd_calls_total{code="UNAUTHENTICATED",method="SolveChain"} 1$' <<<"$metrics" ||
  fail "metrics: no SolveChain UNAUTHENTICATED = 1"
say "metrics: $(grep -c '^ikd_' <<<"$metrics") samples, SolveChain OK 1, UNAUTHENTICATED 1"
stop_cleanly "$ctr-secure"

ok=1
say "PASS"
