#!/usr/bin/env bash
# Issue 18: one PRM trained on the automatic labels of both CPU loop runs (bench/loop-prm-cpu.sh and
# bench/loop-prm-cpu-solved.sh: 207 solutions, against 131 and 100), with the same recipe, and
# measured on both runs' held-out labels. Nothing is sampled or probed again: each run's journals are
# copied into a scratch loop folder and `stepwise loop --label-only` restores their labels into the
# union's workspace (and each run's held-out labels into its folder); then the solved run's loop
# command trains, exports and evaluates on the union workspace. About 45 minutes of CPU, resumable.
#
# Writes bench/results/loop-prm-cpu-union.json: the loop's report, best-of-4, and the verdict of the
# PRM against the verifier on each run's held-out labels (the verifier's scores are the runs' own
# `eval prm` journals). The scratch folders are in .cache/bench/loop-prm-cpu-union.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
WORK=$ROOT/.cache/bench/loop-prm-cpu-union
UNION=$WORK/union
# shellcheck source=bench/default-model.sh
source bench/default-model.sh
TRAINER=(--base-model "$MODEL" --trainer-args="--lora-r 16 --max-steps 60 --save-steps 20 --batch-size 4")
mkdir -p "$WORK/first" "$UNION"
SOLVED_TRAIN=$(node bench/loop-solved-problems.mjs "$DATA" "$WORK/solved-problems.jsonl")
for journal in sample-train.jsonl sample-held-out.jsonl label-train.jsonl label-held-out.jsonl; do
  [ -f "$WORK/first/$journal" ] || cp "bench/runs/loop-prm-cpu/$journal" "$WORK/first/$journal"
  [ -f "$UNION/$journal" ] || cp "bench/runs/loop-prm-cpu-solved/$journal" "$UNION/$journal"
done
# The first run's labels (every problem probed) into the union workspace.
node dist/cli.js loop --label-only --data "$DATA" --levels 1,2 --workspace "$UNION" --out "$WORK/first" \
  --train 33 --held-out 100 --held-out-labels 15 --solutions 4 --samples-per-step 4 --unsolved label \
  "${TRAINER[@]}" >/dev/null
# The solved run's labels, then training on all of them and the evaluation on its held-out labels.
node dist/cli.js loop --data "$WORK/solved-problems.jsonl" --workspace "$UNION" --out "$UNION" \
  --train "$SOLVED_TRAIN" --held-out 100 --held-out-labels 15 --solutions 4 --samples-per-step 4 --unsolved skip \
  "${TRAINER[@]}" "$@" >/dev/null
# The same PRM on the first run's held-out labels (all held-out problems, solved or not).
[ -f "$UNION/eval-prm-first.json" ] ||
  node dist/cli.js eval prm --labels "$WORK/first/held-out-labels/labels.jsonl" --prm-dir "$UNION/prm-onnx" \
    --out "$UNION/eval-prm-first.json" >/dev/null
mkdir -p bench/runs/loop-prm-cpu-union
for f in loop-report.json best-of-n.json eval-prm.json eval-prm.items.jsonl eval-prm-verifier.json \
  eval-prm-verifier.items.jsonl eval-prm-first.json eval-prm-first.items.jsonl; do
  cp "$UNION/$f" bench/runs/loop-prm-cpu-union/
done
npx tsc -p tsconfig.json
node out/bench/loop-union.js
