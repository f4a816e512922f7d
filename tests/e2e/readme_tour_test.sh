#!/usr/bin/env bash
# The README's tour is what the commands print: every ```console block of
# README.md is replayed against an ikd serving the bundled examples, each
# `$ build/client/ikctl ...` line run with this build's ikctl, and its output
# compared with the lines under it. Times (`in 12.34 ms`) are the only part
# allowed to differ. Usage: readme_tour_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2
start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains"

# Splits the README's console blocks into $WORK/tour/N.cmd (the command's
# arguments after `build/client/ikctl`, one per line) and N.out.
/usr/bin/python3 - "$REPO/README.md" "$WORK/tour" <<'PY'
import os, shlex, sys
readme, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
blocks, block = [], None
for line in open(readme, encoding="utf-8").read().splitlines():
    if block is None and line.strip() == "```console":
        block = []
    elif block is not None and line.strip() == "```":
        blocks.append(block)
        block = None
    elif block is not None:
        block.append(line)
n = 0
for block in blocks:
    for line in block:
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            if words[0] != "build/client/ikctl":
                sys.exit(f"README tour: not an ikctl command: {line}")
            n += 1
            open(f"{out}/{n}.cmd", "w").write("\n".join(words[1:]) + "\n")
            open(f"{out}/{n}.out", "w").close()
        else:
            open(f"{out}/{n}.out", "a").write(line + "\n")
if n == 0:
    sys.exit("README tour: no `$ build/client/ikctl` command in a console block")
print(f"README tour: {n} commands")
PY

mask_times() { sed -E 's/ in [0-9]+(\.[0-9]+)? ms/ in <time> ms/'; }
for cmd in "$WORK"/tour/*.cmd; do
  mapfile -t args <"$cmd"
  expected=${cmd%.cmd}.out
  actual=$WORK/actual.txt
  "$IKCTL" --server="$SERVER" "${args[@]}" >"$actual" ||
    fail "ikctl ${args[*]} exited with $?"
  if ! diff -u <(mask_times <"$expected") <(mask_times <"$actual"); then
    fail "README tour: 'ikctl ${args[*]}' prints something else (diff above)"
  fi
  echo "ok: ikctl ${args[*]}"
done
