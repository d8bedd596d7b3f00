#!/usr/bin/env bash
# Two rounds of the practice loop from the CLI (stepwise practice generate --rounds 2), with the
# weak-model regime: the default model proposes, solves and judges; SmolLM2-135M-Instruct answers
# as the weak solver. Writes bench/results/practice-rounds.json: per round, the questions kept and
# the distributions of R_cons, R_sep and R_stab. Needs `npm run build`. About 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.cache/bench/practice-rounds
rm -rf "$OUT"
MODELS=${STEPWISE_MODELS:-$HOME/.cache/stepwise/models}
ARGS=(--rounds 2 --questions "${QUESTIONS:-2}" --judge-passes 2 --pair-passes 1 --best-of 2 --seed 1
  --model-dir "$MODELS/qwen2.5-coder-0.5b-instruct" --weak-model-dir "$MODELS/SmolLM2-135M-Instruct" --device cpu --out-dir "$OUT")
started=$(date +%s)
node dist/cli.js practice generate "${ARGS[@]}" >"$OUT.summary.json" 2>"$OUT.log"
node - "$OUT.summary.json" "$(($(date +%s) - started))" "${ARGS[*]}" "$MODELS" >bench/results/practice-rounds.json <<'JS'
const fs = require('node:fs');
const [summaryFile, seconds, args, models] = process.argv.slice(2);
const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
const result = {
  benchmark: 'issue 43: two rounds of the practice loop from the CLI, with the weak-model regime',
  command: `stepwise practice generate ${args.split(models).join('~/.cache/stepwise/models')}`,
  model: 'generator, solver and judge: Qwen2.5-Coder-0.5B-Instruct (ONNX q4, CPU); weak solver: SmolLM2-135M-Instruct (ONNX q4)',
  machine: { cpu: '2 cores, shared with other helpers' },
  wall_seconds: Number(seconds),
  rounds: summary.rounds,
};
process.stdout.write(JSON.stringify(result, null, 1) + '\n');
JS
