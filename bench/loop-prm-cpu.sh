#!/usr/bin/env bash
# Issue 18's PRM figure on a 2-core CPU: `stepwise loop` with the default model (Qwen2.5-Coder-0.5B)
# as generator and, with LoRA, as the PRM's base, on MATH-500 levels 1-2 (133 problems in file
# order: the first 33 train, the next 100 are held out; levels 3-5 give a 0.5B model almost no
# right solution to learn from). 4 solutions per problem, best-of-4 on all 100 held-out problems,
# step labels (4 continuations per probed step) on the first 15 held-out problems for step AUROC.
#
# Several hours of CPU in all, more than one working session: the run folder,
# bench/runs/loop-prm-cpu, keeps its journals (samples, labels, loop.json) in the repository.
# Its label stores carry the datasets' problem text and stay local, like the trained and exported
# models: the run continues where it stopped on this machine, and on another one the loop rebuilds
# the label stores from the journals and trains again. Rerun this script to continue. When
# it finishes, the run folder holds the figures: loop-report.json and best-of-n.json.
#
# `--unsolved label` probes the solutions of problems no sample solved as well. That was the loop's only
# behaviour when this run began; the default is now to skip them (the figure's labels show why: 91 of
# its 131 training solutions are such problems, each labelled only "the first step already fails").
#
# MATH-500 is read from $STEPWISE_DATA_DIR (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
RUN=$ROOT/bench/runs/loop-prm-cpu
# shellcheck source=bench/default-model.sh
source bench/default-model.sh
mkdir -p "$RUN"
node dist/cli.js loop --data "$DATA" --levels 1,2 --workspace "$RUN" --out "$RUN" \
  --train 33 --held-out 100 --held-out-labels 15 --solutions 4 --samples-per-step 4 --unsolved label \
  --base-model "$MODEL" --trainer-args="--lora-r 16 --max-steps 60 --save-steps 20 --batch-size 4" \
  "$@" >/dev/null
echo "Wrote bench/runs/loop-prm-cpu/loop-report.json and best-of-n.json." >&2
