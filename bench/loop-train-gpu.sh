#!/usr/bin/env bash
# Issue 18 on one GPU, in one device call of under ten minutes: two pipelines at once, since a
# 0.5B model leaves the GPU waiting on Python most of the time.
#   1. sft-format with LoRA on the default model: format-correct greedy outputs, answer accuracy and
#      self-score AUROC on 50 held-out MATH-500 problems, before and after.
#   2. a shorter sft-format (the format only; its held-out check is skipped with a 1-token budget,
#      but it holds out the same 50 problems), then GRPO on it with R = R_format·(0.76 R_Y + 0.24 R_Z):
#      mean reward on held-out problems (the first of the same 50) before and after.
# Each pipeline stops at $LIMIT seconds; what it wrote stays in $RUN (and is copied to $OUT when set).
# Env: BASE (default model: its GGUF or a model folder), STEPWISE_DATA_DIR (MATH-500), DEVICE, PY,
# and the sizes below; a CPU dry run of the plumbing: DEVICE=cpu BASE=<tiny folder> SFT_STEPS=1 ...
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
PY=${PY:-$ROOT/.venv/bin/python}
RUN=${RUN:-$ROOT/.cache/bench/loop-train-gpu}
DEVICE=${DEVICE:-cuda}
LIMIT=${LIMIT:-520}
EXAMPLES=${EXAMPLES:-440}
SFT_STEPS=${SFT_STEPS:-180}
SFT_EVAL_TOKENS=${SFT_EVAL_TOKENS:-1024}
BASE_STEPS=${BASE_STEPS:-100}
GRPO_STEPS=${GRPO_STEPS:-4}
GRPO_EVAL=${GRPO_EVAL:-12}
GRPO_TOKENS=${GRPO_TOKENS:-512}
if [ -z "${BASE:-}" ]; then
  # shellcheck source=bench/default-model.sh
  source bench/default-model.sh
  BASE=$MODEL
fi
rm -rf "$RUN" && mkdir -p "$RUN"
deadline=$(($(date +%s) + LIMIT))
# timeout 0 would mean no limit: a pipeline past its deadline gets one second.
left() { local s=$((deadline - $(date +%s))); echo $((s > 0 ? s : 1)); }
trainer() { PYTHONPATH="$ROOT/trainer${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 timeout "$(left)" "$PY" -W ignore -m stepwise_trainer "$@"; }

# GRPO trains on problems from sft-format's pool and measures on its held-out ones.
PYTHONPATH="$ROOT/trainer${PYTHONPATH:+:$PYTHONPATH}" "$PY" - "$DATA" "$RUN" "$GRPO_EVAL" <<'PY'
import json, sys
from stepwise_trainer.jobs.sft_format import held_out_split
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
held_out, pool = held_out_split(rows, 50, 0)
for name, part in (("grpo-eval", held_out[: int(sys.argv[3])]), ("grpo-train", pool[:128])):
    with open(f"{sys.argv[2]}/{name}.jsonl", "w") as f:
        f.writelines(json.dumps({"problem": r["problem"], "answer": r["answer"]}) + "\n" for r in part)
PY

sft() { # name steps eval-tokens
  trainer sft-format --base-model "$BASE" --math-data "$DATA" --output-dir "$RUN/$1" --examples "$EXAMPLES" \
    --batch-size 16 --learning-rate 2e-4 --lora-r 16 --lora-alpha 32 --max-length 1024 --eval-problems 50 \
    --eval-batch-size 50 --eval-max-new-tokens "$3" --seed 0 --device "$DEVICE" --max-steps "$2" --save-steps "$2" \
    >"$RUN/$1.jsonl" 2>"$RUN/$1.log"
}
started=$(date +%s)
sft sft-format "$SFT_STEPS" "$SFT_EVAL_TOKENS" &
(
  sft grpo-base "$BASE_STEPS" 1 &&
    trainer grpo --base-model "$RUN/grpo-base/final" --data "$RUN/grpo-train.jsonl" --eval-data "$RUN/grpo-eval.jsonl" \
      --output-dir "$RUN/grpo" --max-steps "$GRPO_STEPS" --save-steps "$GRPO_STEPS" --batch-size 16 --num-generations 4 \
      --max-completion-length "$GRPO_TOKENS" --learning-rate 5e-5 --lora-r 16 --lora-alpha 32 --seed 0 --device "$DEVICE" \
      --eval-batch-size "$GRPO_EVAL" --verifier-batch-size 64 >"$RUN/grpo.jsonl" 2>"$RUN/grpo.log"
) &
wait
echo "both pipelines ended after $(($(date +%s) - started)) s"
for f in sft-format grpo-base grpo; do
  echo "== $f: $(grep -c '"type": *"metric"' "$RUN/$f.jsonl" 2>/dev/null) metric events"
  grep '"type": *"\(done\|error\)"' "$RUN/$f.jsonl" 2>/dev/null | cut -c1-600
  tail -n 3 "$RUN/$f.log" 2>/dev/null
done
if [ -n "${OUT:-}" ]; then
  cp "$RUN"/{sft-format,grpo-base,grpo}.jsonl "$RUN"/grpo.log "$OUT"/ 2>/dev/null
  tail -n 200 "$RUN/sft-format.log" >"$OUT/sft-format.log" 2>/dev/null
  cp "$RUN"/sft-format/held-out-before.jsonl "$OUT"/sft-held-out-before.jsonl 2>/dev/null
  cp "$RUN"/sft-format/held-out-after.jsonl "$OUT"/sft-held-out-after.jsonl 2>/dev/null
fi
