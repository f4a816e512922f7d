#!/usr/bin/env bash
# ikd_loadgen --rpc=tick runs and prints what it promises: with
# --solver_threads=1,2 a line per run against an ikd in its own process, one
# per thread count with the ratio to one thread, and the core reference;
# against a live ikd (--ikd_pid) the tick, the single calls and the core
# reference with ikd's CPU over it; --core_reference=false leaves the core
# out, and examples that are not the target's stop it before any load. No
# timing is checked. Usage: loadgen_tick_test.sh IKD IKD_LOADGEN
source "$(dirname "$0")/lib.sh"
IKD=$1
LOADGEN=$2
NUMBER='[0-9]+\.[0-9]+'

expect() {  # expect OUTPUT PATTERN WHAT
  grep -Eq -- "$2" <<<"$1" || { echo "$1" >&2; fail "no $3 (/$2/)"; }
}

small=(--rpc=tick --characters=20 --ticks=3)

out=$("$LOADGEN" "${small[@]}" --solver_threads=1,2) \
  || { echo "$out" >&2; fail "--solver_threads=1,2 exited with $?"; }
echo "$out"
for run in "1 solver thread" "2 solver threads"; do
  expect "$out" "^Tick, $run \(ikd in this process\): 3 ticks of 20 characters .*tick latency ms p50 $NUMBER p99 $NUMBER.*; failed jobs 0$" \
    "Tick line for $run"
  expect "$out" "^single calls, $run \(ikd in this process\): 3 ticks of 20 characters .*; failed jobs 0$" \
    "single calls line for $run"
done
expect "$out" "^solver threads 1: tick p50 $NUMBER ms, p99 $NUMBER ms$" "1-thread summary"
expect "$out" "^solver threads 2: tick p50 $NUMBER ms, p99 $NUMBER ms; / 1 thread: p50 $NUMBER, p99 $NUMBER$" \
  "2-thread summary with its ratio to 1 thread"
expect "$out" "^core \(TickBatchJob in this process, 1 thread, the last tick's 20 characters\): $NUMBER us per character, median of 3 repetitions; .*; failed jobs 0$" \
  "core reference line"

start_server "$IKD" --listen=127.0.0.1:0 --solver_threads=2 \
  --rig_dir="$REPO/examples/rigs" --terrain_dir="$REPO/examples/terrains"
out=$("$LOADGEN" "${small[@]}" --server="$SERVER" --ikd_pid="$SERVER_PID" \
  --stream --pose_form=quantized) \
  || { echo "$out" >&2; fail "against $SERVER exited with $?"; }
echo "$out"
expect "$out" "^TickStream: 3 ticks of 20 characters .*; ikd CPU $NUMBER ms per tick, $NUMBER us per character;.*; failed jobs 0$" \
  "TickStream line with ikd's CPU"
expect "$out" "^single calls: 3 ticks of 20 characters .*; failed jobs 0$" "single calls line"
expect "$out" "^core \(TickBatchJob in this process, 1 thread, the last tick's 20 characters\): $NUMBER us per character, median of 3 repetitions; ikd CPU (per character / core = $NUMBER / $NUMBER = $NUMBER|/ core: no CPU time read for --ikd_pid=$SERVER_PID .*); failed jobs 0$" \
  "core reference line with ikd's CPU over it"

out=$("$LOADGEN" "${small[@]}" --server="$SERVER" --single_ticks=0 \
  --core_reference=false --pose_only) \
  || { echo "$out" >&2; fail "--core_reference=false exited with $?"; }
expect "$out" "^Tick: 3 ticks of 20 characters" "Tick line"
if grep -q "^core" <<<"$out"; then fail "--core_reference=false printed a core line"; fi

code=0
out=$("$LOADGEN" "${small[@]}" --server="$SERVER" \
  --examples_dir="$WORK/no_examples" 2>&1) || code=$?
[[ $code -eq 2 ]] || { echo "$out" >&2; fail "missing examples: exit $code, not 2"; }
expect "$out" "the core reference: --examples_dir=$WORK/no_examples" "the reason"
if grep -q "^Tick" <<<"$out"; then fail "ran the load without its core reference"; fi
echo "ok: ikd_loadgen --rpc=tick"
