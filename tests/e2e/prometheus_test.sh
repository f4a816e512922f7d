#!/usr/bin/env bash
# A real Prometheus (Debian's prometheus) scrapes a running ikd's
# --metrics_listen; its HTTP API then answers queries over what it scraped.
# Usage: prometheus_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
[[ -x $PROMETHEUS ]] || fail "no $PROMETHEUS (scripts/setup.sh --test installs it)"

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --metrics_listen=127.0.0.1:0
METRICS=$(sed -n 's/^ikd: metrics on \([^/]*\)\/metrics$/\1/p' "$LOG")
[[ -n $METRICS ]] || fail "ikd did not say where its metrics are"

for _ in 1 2 3; do
  "$IKCTL" --server="$SERVER" solve --rig humanoid --chain left_arm \
    --target 0.45,1.2,0.15 >/dev/null || fail "solve"
done
if "$IKCTL" --server="$SERVER" solve --rig humanoid --chain tentacle \
  --target 0,1,0 >/dev/null 2>&1; then
  fail "an unknown chain was solved"
fi

# A free port for Prometheus' own web server.
PROM_PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ikd
    static_configs:
      - targets: ['$METRICS']
YML
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" \
  --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
trap 'kill $PROM_PID 2>/dev/null || true; wait $PROM_PID 2>/dev/null || true; cleanup' EXIT

# query EXPR: the first sample's value of an instant query, "" when none.
query() {
  /usr/bin/python3 - "$PROM_PORT" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
port, expr = sys.argv[1], sys.argv[2]
url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
try:
    with urllib.request.urlopen(url, timeout=5) as answer:
        body = json.load(answer)
except Exception:
    sys.exit(0)
result = body.get("data", {}).get("result", [])
if body.get("status") == "success" and result:
    print(result[0]["value"][1])
PY
}

# Wait (bounded: 120 tries of 0.5 s) until the scrape reached Prometheus.
value=""
for _ in $(seq 1 120); do
  value=$(query 'ikd_calls_total{job="ikd",method="SolveChain",code="OK"}')
  [[ -n $value ]] && break
  kill -0 $PROM_PID 2>/dev/null || { cat "$WORK/prometheus.log" >&2; fail "prometheus exited"; }
  sleep 0.5
done
[[ $value == 3 ]] || { cat "$WORK/prometheus.log" >&2; fail "SolveChain OK: '$value', want 3"; }
[[ $(query 'up{job="ikd"}') == 1 ]] || fail "up{job=ikd} is not 1"
[[ $(query 'ikd_calls_total{method="SolveChain",code="NOT_FOUND"}') == 1 ]] \
  || fail "SolveChain NOT_FOUND"
rigs=$(ls "$REPO"/examples/rigs/*.json | wc -l)
[[ $(query 'ikd_registered{kind="rig"}') == "$rigs" ]] || fail "registered rigs"
[[ $(query 'sum(ikd_goals_reached_total) / sum(ikd_goals_total)') == 1 ]] \
  || fail "reach ratio"
[[ $(query 'ikd_call_duration_seconds_count{method="SolveChain"}') == 4 ]] \
  || fail "latency histogram count"
[[ $(query 'count(ikd_build_info)') == 1 ]] || fail "build info"
echo "prometheus scraped ikd: SolveChain OK=$value, rigs=$rigs"
stop_server
echo "prometheus: ok"
