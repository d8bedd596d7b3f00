#!/usr/bin/env bash
# Runs the trainer's sft-format job on SmolLM2-135M-Instruct (small enough for full fine-tuning on
# this CPU; the default model's LoRA run needs a GPU: bench/loop-train-gpu.sh) with a few hundred
# format examples built from MATH-500, and writes the format-correctness rate of greedy outputs on
# held-out problems before and after to bench/results/sft-format.json.
# MATH-500 is read from $STEPWISE_DATA_DIR (default ../shared/data); the run folder is kept in
# .cache/bench/sft-format for inspection. CPU: about 50 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# shellcheck source=bench/math-data.sh
source bench/math-data.sh
RUN=$ROOT/.cache/bench/sft-format
rm -rf "$RUN" && mkdir -p "$RUN"
# Sized for a 2-core CPU (about 50 minutes): 256 examples of at most 704 tokens (the generator
# prompt alone is about 400), one pass in 64 steps of 4; 10 held-out problems, 384 new tokens each.
# On a GPU, raise --examples to 300+ and --eval-problems to 50.
ARGS=(--base-model smollm2 --math-data "$DATA" --output-dir "$RUN" --examples "${EXAMPLES:-256}"
  --max-steps "${STEPS:-64}" --save-steps 32 --batch-size 4 --learning-rate 1e-4 --max-length 704
  --eval-problems "${EVAL_PROBLEMS:-10}" --eval-max-new-tokens 384 --seed 0)
started=$(date +%s)
PYTHONPATH="$ROOT/trainer" "$ROOT/.venv/bin/python" -W ignore -m stepwise_trainer sft-format "${ARGS[@]}" \
  >"$RUN/events.jsonl" 2>"$RUN/trainer.log"
"$ROOT/.venv/bin/python" - "$RUN/events.jsonl" "$(($(date +%s) - started))" "${ARGS[*]}" <<'PY'
import json, os, platform, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
done = next(e for e in events if e["type"] == "done")
losses = [e["data"]["loss"] for e in events if e["type"] == "metric" and "loss" in e["data"]]
result = {
    "benchmark": "sft-format on SmolLM2-135M: format-correctness rate of greedy outputs on held-out MATH-500 problems",
    "model": "SmolLM2-135M-Instruct (full fine-tuning, CPU fp32)",
    "args": sys.argv[3],
    "format_rate_before": done["metrics"]["before/format_rate"],
    "format_rate_after": done["metrics"]["after/format_rate"],
    # Answer accuracy and the self-score AUROC joined the job's held-out check later; older runs lack them.
    **{f"{k}_{when}": done["metrics"].get(f"{when}/{k}") for k in ("answer_accuracy", "self_score_auroc", "contradiction_rate") for when in ("before", "after")},
    "examples": done["metrics"]["examples"],
    "first_loss": losses[0] if losses else None,
    "last_loss": losses[-1] if losses else None,
    "wall_seconds": int(sys.argv[2]),
    "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
}
os.makedirs("bench/results", exist_ok=True)
with open("bench/results/sft-format.json", "w") as f:
    json.dump(result, f, indent=2)
    f.write("\n")
print(json.dumps(result, indent=2))
PY
