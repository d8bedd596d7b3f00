#!/usr/bin/env bash
# A GRPO learning curve on this CPU with a separate, frozen verifier: SmolLM2-135M-Instruct on
# two-number sums and differences (bench/arith-problems.py, seed 0; training and held-out problems
# are disjoint). sft-format first teaches the answer format on the training problems (without it
# a 135M model never writes the format, every reward is 0 and GRPO has nothing to compare); then
# grpo trains from that model, graded by a frozen copy of it under the product's verifier and
# meta-verifier prompts, and samples K completions per held-out problem before and after from the
# same seed. bench/grpo-arith-summary.py writes bench/results/grpo-arith-cpu.json with paired 95 %
# intervals over the held-out problems.
#
#   bash bench/grpo-arith-cpu.sh [sft|probe|grpo|more|auto|verifier]    (default auto)
#
# sft writes RUN/sft/final; probe runs one GRPO step on 2 held-out problems into RUN/probe to time
# the phases; grpo trains from RUN/sft/final (STEPS steps, HELD_OUT problems) and writes the
# results. auto runs sft, then the probe, then sizes grpo from what the probe measured so that the
# whole run ends within BUDGET_S seconds (default 1380: one 25-minute slot with room to save).
# more continues grpo from its last checkpoint to STEPS steps in total, in another slot. A format example is 98
# tokens with its end-of-turn token, so completions get 128: at 96 (the first run) a perfect answer
# was cut before its score and earned R_format = 0. Torch runs on one thread: on this shared 2-core
# machine two threads ran a layer 24× slower than one.
# Knobs (environment): SFT_STEPS (8), LR (5e-5), PROBLEMS_PER_STEP (2; 4 completions each),
# EVAL_K held-out samples per problem (2), VERIFIER (frozen, or a trained verifier's folder).
# The run whose held-out reward rose beyond its interval: SFT_STEPS=6 LR=3e-5 PROBLEMS_PER_STEP=4
# HELD_OUT=24 STEPS=8 RESULTS=bench/results/grpo-arith-format-start.json, sft then grpo.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STAGE=${1:-auto}
RUN=${RUN:-$ROOT/.cache/bench/grpo-arith}
export PYTHONPATH="$ROOT/trainer" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${OMP_NUM_THREADS:-1}
PY="$ROOT/.venv/bin/python"
HELD_OUT=${HELD_OUT:-32}
# Where grpo and more write their figures (a run graded by another verifier goes to its own file).
RESULTS=${RESULTS:-bench/results/grpo-arith-cpu.json}
SFT=(--base-model smollm2 --math-data "$RUN/data/train.jsonl" --output-dir "$RUN/sft" --examples "${SFT_EXAMPLES:-32}"
  --max-steps "${SFT_STEPS:-8}" --save-steps 100 --batch-size 4 --learning-rate 1e-4 --max-length 512
  --eval-problems 4 --eval-max-new-tokens 128 --eval-batch-size 4 --seed 0 --device cpu)
grpo_args() { # output dir, steps, held-out file
  echo --base-model "$RUN/sft/final" --data "$RUN/data/train.jsonl" --eval-data "$3" --output-dir "$1" --max-steps "$2"
  echo --save-steps 100 --num-generations 4 --problems-per-step "${PROBLEMS_PER_STEP:-2}" --batch-size 8 --max-completion-length 128
  echo --learning-rate "${LR:-5e-5}" --verifier "${VERIFIER:-frozen}" --verifier-max-new-tokens "${VERIFY_TOKENS:-8}" --eval-batch-size 8 --eval-generations "${EVAL_K:-2}" --seed 0 --device cpu
}
sft() {
  rm -rf "$RUN" && mkdir -p "$RUN"
  "$PY" bench/arith-problems.py "$RUN/data" --train 200 --held-out "$HELD_OUT" --seed 0
  local started
  started=$(date +%s)
  "$PY" -W ignore -m stepwise_trainer sft-format "${SFT[@]}" >"$RUN/sft.events.jsonl" 2>"$RUN/sft.log"
  echo $(($(date +%s) - started)) >"$RUN/sft.seconds"
  echo "sft-format ${SFT[*]}" >"$RUN/sft.command"
}
probe() {
  rm -rf "$RUN/probe" && mkdir -p "$RUN/probe"
  head -n 2 "$RUN/data/held-out.jsonl" >"$RUN/probe/held-out.jsonl"
  # shellcheck disable=SC2046
  "$PY" -W ignore -m stepwise_trainer grpo $(grpo_args "$RUN/probe/grpo" 1 "$RUN/probe/held-out.jsonl") >"$RUN/probe/grpo.events.jsonl" 2>"$RUN/probe/grpo.log"
  "$PY" bench/grpo-arith-summary.py --timing "$RUN/probe/grpo.events.jsonl" | tee "$RUN/probe/timing.json"
}
grpo() {
  [ -d "$RUN/sft/final" ] || { echo "no $RUN/sft/final: run 'bash bench/grpo-arith-cpu.sh sft' first" >&2; exit 1; }
  rm -rf "$RUN/grpo"
  head -n "$HELD_OUT" "$RUN/data/held-out.jsonl" >"$RUN/held-out-used.jsonl"
  local args started
  args=$(grpo_args "$RUN/grpo" "${STEPS:-8}" "$RUN/held-out-used.jsonl" | tr '\n' ' ')
  started=$(date +%s)
  # shellcheck disable=SC2086
  "$PY" -W ignore -m stepwise_trainer grpo $args >"$RUN/grpo.events.jsonl" 2>"$RUN/grpo.log"
  echo $(($(date +%s) - started)) >"$RUN/grpo.seconds"
  echo "grpo $args" >"$RUN/grpo.command"
  "$PY" bench/grpo-arith-summary.py "$RUN" --grpo-seconds "$(($(date +%s) - started))" --sft-seconds "$(cat "$RUN/sft.seconds")" \
    --command "bench/grpo-arith-cpu.sh: $(cat "$RUN/sft.command"); grpo $args" >"$RESULTS"
}
more() {
  # Continues the grpo run from its last checkpoint (optimizer state and all) to STEPS steps in
  # total, in another slot: the held-out problems and the before-record stay, the after-record of
  # the first part is kept as held-out-after-step<N>.jsonl, a point in the middle of the curve.
  [ -d "$RUN/grpo/checkpoints" ] || { echo "no $RUN/grpo/checkpoints: run the grpo stage first" >&2; exit 1; }
  local done_steps args started
  done_steps=$(cat "$RUN/grpo/checkpoints/latest" | tr -dc 0-9 | sed 's/^0*//')
  cp "$RUN/grpo/held-out-after.jsonl" "$RUN/grpo/held-out-after-step$done_steps.jsonl"
  args=$(grpo_args "$RUN/grpo" "${STEPS:?STEPS: the total steps to reach}" "$RUN/held-out-used.jsonl" | tr '\n' ' ')
  args="$args --resume --held-out-before $RUN/grpo/held-out-before.jsonl"
  started=$(date +%s)
  # shellcheck disable=SC2086
  "$PY" -W ignore -m stepwise_trainer grpo $args >"$RUN/grpo-more.events.jsonl" 2>"$RUN/grpo-more.log"
  echo $(($(date +%s) - started)) >"$RUN/grpo-more.seconds"
  "$PY" bench/grpo-arith-summary.py "$RUN" --grpo-seconds "$(($(cat "$RUN/grpo.seconds") + $(cat "$RUN/grpo-more.seconds")))" \
    --sft-seconds "$(cat "$RUN/sft.seconds")" --command "bench/grpo-arith-cpu.sh: $(cat "$RUN/sft.command"); $(cat "$RUN/grpo.command"); then grpo $args" \
    >"$RESULTS"
}
verifier() {
  [ -d "$RUN/sft/final" ] || { echo "no $RUN/sft/final: run 'bash bench/grpo-arith-cpu.sh sft' first" >&2; exit 1; }
  local started args
  # KEEP_PROOFS=1 trains on the scored proofs of an earlier run (sampling them takes 8 minutes).
  if [ "${KEEP_PROOFS:-0}" = 1 ] && [ -f "$RUN/verifier/train.jsonl" ]; then
    rm -rf "$RUN/verifier/model"
  else
    rm -rf "$RUN/verifier" && mkdir -p "$RUN/verifier"
    started=$(date +%s)
    "$PY" -W ignore bench/arith-scored-proofs.py "$RUN/sft/final" "$RUN/data/train.jsonl" "$RUN/verifier" --train-problems "${V_PROBLEMS:-64}" \
      --eval-problems "${V_EVAL_PROBLEMS:-24}" --samples 4 --seed 0 >"$RUN/verifier/counts.json" 2>"$RUN/verifier/proofs.log"
    echo $(($(date +%s) - started)) >"$RUN/verifier/proofs.seconds"
  fi
  # Verdicts of 64 tokens: the shortest one in the format is about 35; the held-out grade is read
  # after as many analysis tokens as grpo's judge writes, so the AUROC is the one grpo will get.
  args="--base-model $RUN/sft/final --data $RUN/verifier/train.jsonl --eval-data $RUN/verifier/eval.jsonl --output-dir $RUN/verifier/model"
  args="$args --max-steps ${V_STEPS:-12} --save-steps 100 --num-generations 4 --problems-per-step 4 --batch-size 8 --max-completion-length 64"
  args="$args --learning-rate ${V_LR:-5e-5} --eval-max-new-tokens ${VERIFY_TOKENS:-8} --seed 0 --device cpu"
  # The format phase first (V_FORMAT_STEPS=0 turns it off): the sft model wrote 0 of 12 sampled
  # verdicts in the verifier format at 64 tokens, so every GRPO group was rewarded 0.
  args="$args --format-steps ${V_FORMAT_STEPS:-8} --format-check 16"
  started=$(date +%s)
  # shellcheck disable=SC2086
  "$PY" -W ignore -m stepwise_trainer verifier $args >"$RUN/verifier.events.jsonl" 2>"$RUN/verifier.log"
  echo $(($(date +%s) - started)) >"$RUN/verifier/train.seconds"
  echo "verifier $args" >"$RUN/verifier.command"
  "$PY" bench/grpo-arith-summary.py "$RUN" --verifier-only >"$RUN/verifier/summary.json"
  cat "$RUN/verifier/summary.json"
}
auto() {
  local began sizes
  began=$(date +%s)
  sft
  local probe_started=$(date +%s)
  probe
  local probe_seconds=$(($(date +%s) - probe_started))
  # The probe's load time, its 2-problem measurement and its one step, scaled to what is left.
  sizes=$("$PY" bench/grpo-arith-summary.py --size "$RUN/probe/timing.json" --probe-seconds "$probe_seconds" \
    --left "$((${BUDGET_S:-1380} - ($(date +%s) - began)))" --held-out "$HELD_OUT")
  echo "sized: $sizes" >&2
  HELD_OUT=${sizes% *} STEPS=${sizes#* } grpo
}
case "$STAGE" in
  sft) sft ;;
  probe) probe ;;
  grpo) grpo ;;
  more) more ;;
  auto) auto ;;
  verifier) verifier ;;
  *) echo "usage: bash bench/grpo-arith-cpu.sh [sft|probe|grpo|more|auto|verifier]" >&2; exit 2 ;;
esac
