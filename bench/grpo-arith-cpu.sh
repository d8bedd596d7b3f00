#!/usr/bin/env bash
# A GRPO learning curve on this CPU with a separate, frozen verifier: SmolLM2-135M-Instruct on
# two-number sums and differences (bench/arith-problems.py, seed 0; training and held-out problems
# are disjoint). sft-format first teaches the answer format on the training problems (without it
# a 135M model never writes the format, every reward is 0 and GRPO has nothing to compare); then
# grpo trains from that model, graded by a frozen copy of it under the product's verifier and
# meta-verifier prompts, and samples K completions per held-out problem before and after from the
# same seed. bench/grpo-arith-summary.py writes bench/results/grpo-arith-cpu.json with paired 95 %
# intervals over the held-out problems. Torch runs on one thread: on this shared 2-core machine
# two threads ran a layer 24× slower than one. About 25 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUN=${RUN:-$ROOT/.cache/bench/grpo-arith}
rm -rf "$RUN" && mkdir -p "$RUN"
export PYTHONPATH="$ROOT/trainer" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${OMP_NUM_THREADS:-1}
PY="$ROOT/.venv/bin/python"
"$PY" bench/arith-problems.py "$RUN/data" --train 200 --held-out "${HELD_OUT:-8}" --seed 0
SFT=(--base-model smollm2 --math-data "$RUN/data/train.jsonl" --output-dir "$RUN/sft" --examples 32
  --max-steps "${SFT_STEPS:-6}" --save-steps 100 --batch-size 4 --learning-rate 1e-4 --max-length 512
  --eval-problems 1 --eval-max-new-tokens 8 --seed 0 --device cpu)
GRPO=(--base-model "$RUN/sft/final" --data "$RUN/data/train.jsonl" --eval-data "$RUN/data/held-out.jsonl"
  --output-dir "$RUN/grpo" --max-steps "${STEPS:-5}" --save-steps 100 --num-generations 4 --problems-per-step 2
  --batch-size 8 --max-completion-length 96 --learning-rate 3e-5 --verifier frozen --verifier-max-new-tokens 16
  --eval-batch-size 2 --seed 0 --device cpu)
started=$(date +%s)
"$PY" -W ignore -m stepwise_trainer sft-format "${SFT[@]}" >"$RUN/sft.events.jsonl" 2>"$RUN/sft.log"
sft_seconds=$(($(date +%s) - started))
"$PY" -W ignore -m stepwise_trainer grpo "${GRPO[@]}" >"$RUN/grpo.events.jsonl" 2>"$RUN/grpo.log"
"$PY" bench/grpo-arith-summary.py "$RUN" --wall-seconds "$(($(date +%s) - started))" --sft-seconds "$sft_seconds" \
  --command "bench/grpo-arith-cpu.sh: sft-format ${SFT[*]}; grpo ${GRPO[*]}" >bench/results/grpo-arith-cpu.json
