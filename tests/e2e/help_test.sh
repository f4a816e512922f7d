#!/usr/bin/env bash
# `ikd --help` and `ikctl --help` print each program's own usage and flags,
# with no source path of the build in them, and exit 0. A flag out of its
# range stops ikd with exit status 2 and a message that names the flag in
# words (no status payload); a command with no JSON form refuses --json.
# Usage: help_test.sh IKD IKCTL
set -euo pipefail
IKD=$1
IKCTL=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # check NAME OUTPUT FLAG...
  local name=$1 out=$2
  shift 2
  grep -q "Flags from $name:" <<<"$out" || fail "$name --help: no 'Flags from $name:'"
  for flag in "$@"; do
    grep -q -- "--$flag " <<<"$out" || fail "$name --help does not list --$flag"
  done
  if grep -nE "Flags from .*/|\.cc[:)]|absl/flags|--flagfile" <<<"$out"; then
    fail "$name --help shows source paths or Abseil's own flags (above)"
  fi
  echo "ok: $name --help ($(wc -l <<<"$out") lines)"
}

ikd_help=$("$IKD" --help 2>&1) || fail "ikd --help exited $?"
grep -q "inverse kinematics as a gRPC service" <<<"$ikd_help" || fail "ikd --help: no usage"
check ikd "$ikd_help" listen rig_dir state_dir max_work_per_call metrics_listen

ikctl_help=$("$IKCTL" --help 2>&1) || fail "ikctl --help exited $?"
grep -q "usage: ikctl" <<<"$ikctl_help" || fail "ikctl --help: no usage"
check ikctl "$ikctl_help" server json rig chain target characters svg

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
code=0
out=$("$IKD" --listen=127.0.0.1:0 --rig_dir= --terrain_dir= \
  --record_dir="$work/rec" --record_sample=2 2>&1) || code=$?
[[ $code -eq 2 ]] || fail "ikd --record_sample=2 exited $code: $out"
grep -q "^ikd: --record_sample: must be in (0, 1]$" <<<"$out" \
  || fail "ikd --record_sample=2 says: $out"
grep -q "type.googleapis.com" <<<"$out" && fail "a status payload printed: $out"
code=0
out=$("$IKCTL" --json render --rig=humanoid --svg="$work/x.svg" 2>&1) || code=$?
[[ $code -eq 2 && "$out" == *"render: --json has no JSON form"* ]] \
  || fail "ikctl --json render exited $code: $out"
echo "ok: flag errors and --json refusals"
