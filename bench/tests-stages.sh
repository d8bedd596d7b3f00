#!/usr/bin/env bash
# A variant of the tests flow's stage prompts against the shipped ones (prompts/code/stages.json),
# on real data: `stepwise eval tests --stages bench/prompts/stages-NAME.json` on the first N
# HumanEval functions (default 40) with the default model, compared function by function with the
# full HumanEval run of the shipped prompts (same model, settings and seeds) by
# bench/eval-tests-compare.mjs. Writes bench/results/tests-stages-NAME.json.
#   bash bench/tests-stages.sh NAME [N] [BASELINE.items.jsonl]
# Variants: preconditions (tests use only inputs the specification allows), no-repeats (each test
# writer is shown the suite so far). The run folder bench/runs/tests-stages-NAME keeps its journal
# in git: rerun to continue. HumanEval is read from $STEPWISE_DATA_DIR (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
NAME=${1:?usage: bash bench/tests-stages.sh NAME [N] [BASELINE.items.jsonl]}
LIMIT=${2:-40}
BASELINE=${3:-bench/results/eval-tests-humaneval.items.jsonl}
STAGES=bench/prompts/stages-$NAME.json
[ -f "$STAGES" ] || { echo "No stage variant $STAGES." >&2; exit 2; }
DATA=${STEPWISE_DATA_DIR:-$ROOT/../shared/data}/HumanEval.jsonl.gz
if [ ! -f "$DATA" ]; then
  echo "HumanEval is not at $DATA; set STEPWISE_DATA_DIR to the folder that holds HumanEval.jsonl.gz." >&2
  exit 2
fi
RUN=bench/runs/tests-stages-$NAME
mkdir -p "$RUN"
node dist/cli.js eval tests --data "$DATA" --limit "$LIMIT" --stages "$STAGES" \
  --out "$RUN/eval-tests.json" --progress text >/dev/null
node bench/eval-tests-compare.mjs "$BASELINE" "$RUN/eval-tests.items.jsonl" "bench/results/tests-stages-$NAME.json"
