#!/usr/bin/env bash
# Every documented command is what it prints: each ```console block of
# README.md and docs/*.md is replayed against an ikd serving the bundled
# examples (a fresh one per file, the blocks of a file in order), each
# `$ ikctl ...` (or `$ build/client/ikctl ...`) line run with this build's
# ikctl (stdout and stderr together, whatever its exit status) and its
# output compared with the lines under it; a `$ cat FILE` line writes the
# lines under it to FILE for the commands after it. Times (`in 12.34 ms`)
# are the only part allowed to differ, and a line `…` stands for lines left
# out. Usage: readme_tour_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1
IKCTL=$2

# Splits a file's console blocks into DIR/N.cmd (the command's words, one
# per line) and DIR/N.out.
split_blocks() {  # split_blocks FILE DIR
  /usr/bin/python3 - "$1" "$2" <<'PY'
import os, shlex, sys
source, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
blocks, block = [], None
for line in open(source, encoding="utf-8").read().splitlines():
    if block is None and line.strip() == "```console":
        block = []
    elif block is not None and line.strip() == "```":
        blocks.append(block)
        block = None
    elif block is not None:
        block.append(line)
n = 0
for block in blocks:
    joined = []
    for line in block:   # `\` at the end of a command continues it
        if joined and joined[-1].startswith("$ ") and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line.strip()
        else:
            joined.append(line)
    for line in joined:
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            if words[0] in ("ikctl", "build/client/ikctl"):
                words[0] = "ikctl"
            elif words[0] != "cat" or len(words) != 2:
                sys.exit(f"{source}: a console block runs only ikctl and "
                         f"`cat FILE`: {line}")
            n += 1
            open(f"{out}/{n:03d}.cmd", "w").write("\n".join(words) + "\n")
            open(f"{out}/{n:03d}.out", "w").close()
        elif n == 0:
            sys.exit(f"{source}: a console block starts with output")
        else:
            open(f"{out}/{n:03d}.out", "a").write(line + "\n")
print(f"{source}: {n} commands")
PY
}

# Whether ACTUAL prints EXPECTED: line for line, times masked, a line `…`
# of EXPECTED standing for any lines (none included); the diff on stderr
# when not.
matches() {  # matches EXPECTED ACTUAL
  /usr/bin/python3 - "$1" "$2" <<'PY'
import difflib, re, sys
mask = lambda text: [re.sub(r" in [0-9]+(\.[0-9]+)? ms", " in <time> ms", line)
                     for line in text.splitlines()]
expected = mask(open(sys.argv[1], encoding="utf-8").read())
actual = mask(open(sys.argv[2], encoding="utf-8").read())
def match(e, a):
    if e == len(expected):
        return a == len(actual)
    if expected[e] == "…":
        return any(match(e + 1, k) for k in range(a, len(actual) + 1))
    return a < len(actual) and expected[e] == actual[a] and match(e + 1, a + 1)
if not match(0, 0):
    sys.stderr.writelines(difflib.unified_diff(
        [l + "\n" for l in expected], [l + "\n" for l in actual],
        "documented", "printed"))
    sys.exit(1)
PY
}
mkdir -p "$WORK/cwd"
ln -s "$REPO/examples" "$WORK/cwd/examples"
total=0
for doc in "$REPO/README.md" "$REPO"/docs/*.md; do
  name=$(basename "$doc" .md)
  split_blocks "$doc" "$WORK/blocks/$name"
  ls "$WORK/blocks/$name"/*.cmd >/dev/null 2>&1 || continue
  start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
    --terrain_dir="$REPO/examples/terrains"
  for cmd in "$WORK/blocks/$name"/*.cmd; do
    mapfile -t words <"$cmd"
    expected=${cmd%.cmd}.out
    if [[ ${words[0]} == cat ]]; then
      cp "$expected" "$WORK/cwd/${words[1]}"
      continue
    fi
    (cd "$WORK/cwd" && "$IKCTL" --server="$SERVER" "${words[@]:1}") \
      >"$WORK/actual.txt" 2>&1 || true
    if ! matches "$expected" "$WORK/actual.txt"; then
      fail "$name.md: '${words[*]}' prints something else (diff above)"
    fi
    echo "ok: $name.md: ${words[*]}"
    total=$((total + 1))
  done
  stop_server
done
echo "documented commands: $total, each printing what its docs show"
