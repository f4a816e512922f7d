#!/usr/bin/env bash
# Every core benchmark of two builds, one after the other per program (so
# both see the same load), and a table of their medians with after / before.
#
#   scripts/bench-compare.sh BEFORE_BUILD AFTER_BUILD [OUT_DIR]
#
# BEFORE_BUILD and AFTER_BUILD are build directories (e.g. one of a worktree
# at an older commit: git worktree add ../before <rev>, then build it). A
# program missing from one side is skipped there. CPU-time medians of 5
# repetitions; counters (per_character, time_per_joint_substep, ...) too.
set -euo pipefail
before=$1
after=$2
out=${3:-$(mktemp -d)}
programs=(two_bone_bench chain_bench swivel_bench torque_bench dynamics_bench
  rig_dynamics_bench terrain_bench ground_bench crowd_batch_bench
  work_units_bench tick_bench)
args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
  --benchmark_format=json)
for program in "${programs[@]}"; do
  for side in before after; do
    dir=$before
    [[ $side == after ]] && dir=$after
    if [[ -x $dir/bench/$program ]]; then
      "$dir/bench/$program" "${args[@]}" >"$out/$side.$program.json" \
        2>"$out/$side.$program.log"
    fi
  done
done
python3 "$(dirname "$0")/bench_table.py" "$out" "${programs[@]}"
