#!/usr/bin/env bash
# The tests flow's stage prompts with a precondition rule (bench/prompts/stages-preconditions.json)
# against the shipped ones (prompts/code/stages.json), on real data: `stepwise eval tests --stages`
# on the first N HumanEval functions (default 40) with the default model, compared function by
# function with the full HumanEval run of the shipped prompts (same model, settings and seeds) by
# bench/eval-tests-compare.mjs. Writes bench/results/tests-preconditions.json.
#   bash bench/tests-preconditions.sh [N] [BASELINE.items.jsonl]
# The run folder bench/runs/tests-preconditions keeps its journal in git: rerun to continue.
# HumanEval is read from $STEPWISE_DATA_DIR (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${1:-40}
BASELINE=${2:-bench/runs/eval-tests-humaneval/eval-tests-humaneval.items.jsonl}
DATA=${STEPWISE_DATA_DIR:-$ROOT/../shared/data}/HumanEval.jsonl.gz
if [ ! -f "$DATA" ]; then
  echo "HumanEval is not at $DATA; set STEPWISE_DATA_DIR to the folder that holds HumanEval.jsonl.gz." >&2
  exit 2
fi
RUN=bench/runs/tests-preconditions
mkdir -p "$RUN"
node dist/cli.js eval tests --data "$DATA" --limit "$LIMIT" --stages bench/prompts/stages-preconditions.json \
  --out "$RUN/preconditions.json" --progress text >/dev/null
node bench/eval-tests-compare.mjs "$BASELINE" "$RUN/preconditions.items.jsonl" bench/results/tests-preconditions.json
