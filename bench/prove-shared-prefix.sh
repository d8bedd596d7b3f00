#!/usr/bin/env bash
# Prove's judge prompts laid out for a prompt cache, against the shipped ones, on real data.
# bench/prompts/shared-prefix/ holds the verifier, meta-verifier and refine prompts with the same
# instructions moved after the material: each opens with the problem and the proof, the
# meta-verifier and refine prompts go on with the self-evaluation. Consecutive requests of a round
# (verify, meta-verify, then a refinement) then share their opening, which the engine's prefix cache
# (or a server's prompt cache) reads instead of processing it again. The generator prompt is the
# same in both arms, so their first-round proofs are the same problems with the same seeds.
#
# `stepwise eval prove` on the first N MATH-500 problems (default 40) with the default model, meta-
# verification on, step scores off, up to 2 rounds; the two arms alternate in chunks of 10 problems
# so that a change in the machine's load hits both. The run folder bench/runs/prove-shared-prefix
# keeps the journals in git: rerun to continue. Writes bench/results/prove-shared-prefix.json.
#   bash bench/prove-shared-prefix.sh [N]
# MATH-500 is read from $STEPWISE_DATA_DIR (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
LIMIT=${1:-40}
RUN=$ROOT/bench/runs/prove-shared-prefix
mkdir -p "$RUN"
for ((upto = 10; upto < LIMIT + 10; upto += 10)); do
  n=$((upto < LIMIT ? upto : LIMIT))
  for arm in shipped shared-prefix; do
    prompts=()
    [ "$arm" = shared-prefix ] && prompts=(--prompts-dir bench/prompts/shared-prefix)
    echo "eval prove, $arm prompts, problems 1-$n" >&2
    node dist/cli.js eval prove --data "$DATA" --limit "$n" --iterations 2 --candidates 1 --no-step-scores \
      --out "$RUN/$arm.json" --progress text "${prompts[@]}" >/dev/null
  done
done
node bench/prove-shared-prefix-summary.mjs "$RUN/shipped.json" "$RUN/shared-prefix.json" bench/results/prove-shared-prefix.json
