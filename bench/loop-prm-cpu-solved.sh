#!/usr/bin/env bash
# Issue 18's PRM figure again, with the loop's default `--unsolved skip`: step labels only on problems
# that at least one of their samples solved. The first run (bench/loop-prm-cpu.sh) probed every
# problem, and its PRM learned which problems the generator cannot solve rather than which steps
# are wrong (bench/results/loop-prm-cpu-label-noise.json).
#
# Same generator, PRM base, sampling settings and held-out set as the first run: the 100 held-out
# problems are MATH-500 level 1-2 problems 34-133 in file order. Skipping unsolved problems leaves
# few training problems among level 1-2's first 33 (6 were solved), so training adds all 105 level 3
# problems: the problem file is [level 1-2: first 33] + [level 3] + [level 1-2: next 100]. Both
# sampling journals of the first run are copied in when this run has none: same problems, same
# seeds, same settings, so the loop resumes past them instead of sampling them again.
#
# Several hours of CPU: the run folder, bench/runs/loop-prm-cpu-solved, keeps its journals in git,
# and rerunning this script continues it. When it finishes, the run folder holds the figures:
# loop-report.json and best-of-n.json.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
FIRST=$ROOT/bench/runs/loop-prm-cpu
RUN=$ROOT/bench/runs/loop-prm-cpu-solved
# shellcheck source=bench/default-model.sh
source bench/default-model.sh
mkdir -p "$RUN"
TRAIN=$(node bench/loop-solved-problems.mjs "$DATA" "$RUN/problems.jsonl")
for journal in sample-train.jsonl sample-held-out.jsonl; do
  [ -f "$RUN/$journal" ] || cp "$FIRST/$journal" "$RUN/$journal"
done
node dist/cli.js loop --data "$RUN/problems.jsonl" --workspace "$RUN" --out "$RUN" \
  --train "$TRAIN" --held-out 100 --held-out-labels 15 --solutions 4 --samples-per-step 4 --unsolved skip \
  --base-model "$MODEL" --trainer-args="--lora-r 16 --max-steps 60 --save-steps 20 --batch-size 4" \
  "$@" >/dev/null
echo "Wrote bench/runs/loop-prm-cpu-solved/loop-report.json and best-of-n.json." >&2
