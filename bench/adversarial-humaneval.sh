#!/usr/bin/env bash
# One N+N+K cycle of the adversarial job (seed 002) on a handful of HumanEval functions on this CPU:
# stage 5 (code) only, N = 1, K = 1, SmolLM2-135M-Instruct as both generator and test writer (the
# default model is too slow to train on 2 cores), with --measure: the greedy generator's pass rate
# on HumanEval's own one-line assertions and the validity of the greedy test writer's tests against
# the reference, before and after. The functions: the 4 shortest reference solutions among
# HumanEval/0-29 (a rule fixed before any run). Writes bench/results/adversarial-humaneval.json.
# Needs `npm run build` (the sandbox CLI). About 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUN=${RUN:-$ROOT/.cache/bench/adversarial-humaneval}
HUMANEVAL=${STEPWISE_DATA_DIR:-$ROOT/../shared/data}/HumanEval.jsonl.gz
if [ ! -f "$HUMANEVAL" ]; then
  echo "HumanEval is not at $HUMANEVAL; set STEPWISE_DATA_DIR to the folder that holds HumanEval.jsonl.gz." >&2
  exit 2
fi
rm -rf "$RUN" && mkdir -p "$RUN"
export PYTHONPATH="$ROOT/trainer" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${OMP_NUM_THREADS:-1}
PY="$ROOT/.venv/bin/python"
"$PY" - "$HUMANEVAL" "$RUN/problems.jsonl" <<'PY'
import gzip, json, sys
rows = [json.loads(line) for line in gzip.open(sys.argv[1], "rt", encoding="utf-8")][:30]
chosen = sorted(rows, key=lambda r: (len(r["canonical_solution"]), r["task_id"]))[:4]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.writelines(json.dumps(r) + "\n" for r in chosen)
PY
ARGS=(--base-model smollm2 --data "$RUN/problems.jsonl" --output-dir "$RUN/run" --stages 5 --n-steps 1 --k-rounds 1
  --num-generations 2 --batch-size 8 --max-completion-length 160 --learning-rate 1e-5 --measure --seed 0 --device cpu)
started=$(date +%s)
"$PY" -W ignore -m stepwise_trainer adversarial "${ARGS[@]}" >"$RUN/events.jsonl" 2>"$RUN/trainer.log"
"$PY" - "$RUN" "$(($(date +%s) - started))" "${ARGS[*]}" "$ROOT" >bench/results/adversarial-humaneval.json <<'PY'
import json, sys
from pathlib import Path
run, seconds, args, root = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
events = [json.loads(l) for l in (run / "events.jsonl").read_text().splitlines() if l.startswith("{")]
done = next(e for e in events if e["type"] == "done")["metrics"]
problems = [json.loads(l)["task_id"] for l in (run / "problems.jsonl").read_text().splitlines()]
phases = [{"step": e["step"], **e["data"]} for e in events if e["type"] == "metric" and "adversarial/generator_reward" in e["data"]]
print(json.dumps({
    "benchmark": "issue 43: one N+N+K cycle of the adversarial job on 4 HumanEval functions, pass rate and test validity before and after",
    "command": "bench/adversarial-humaneval.sh: python -m stepwise_trainer adversarial " + args.replace(root + "/", ""),
    "model": "SmolLM2-135M-Instruct as generator and test writer (full fine-tuning, CPU fp32, one torch thread); the default model is too slow to train here",
    "problems": problems,
    "measured_on": "the training problems themselves (the schedule has no held-out split); greedy outputs, stage 5 with no chain before it",
    "wall_seconds": seconds,
    "pass_rate": {"before": done.get("before/pass_rate"), "after": done.get("after/pass_rate")},
    "test_validity": {"before": done.get("before/test_validity"), "after": done.get("after/test_validity")},
    "tests_written": {"before": done.get("before/tests_written"), "after": done.get("after/tests_written")},
    "phases": phases,
    "sandbox_runs": done.get("sandbox_runs"),
    "sandbox_timeouts": done.get("sandbox_timeouts"),
}, indent=1))
PY
