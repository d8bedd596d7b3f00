#!/usr/bin/env bash
# The ONNX engine's prefix cache (src/core/model/onnx/prefixCache.ts) on real data: `stepwise eval
# tests` on the first N HumanEval functions (default 6) with the default model, once reading each
# request's shared prefix from the last request's cache and once with --no-prefix-cache, one after
# the other on the same machine. The tests flow's five stages are one conversation, so every
# request but the first of a function begins with the one before. Writes
# bench/results/prefix-cache.json (seconds per function, tests and their validity, per function).
#   bash bench/prefix-cache.sh [N]
# HumanEval is read from $STEPWISE_DATA_DIR (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LIMIT=${1:-6}
DATA=${STEPWISE_DATA_DIR:-$ROOT/../shared/data}/HumanEval.jsonl.gz
if [ ! -f "$DATA" ]; then
  echo "HumanEval is not at $DATA; set STEPWISE_DATA_DIR to the folder that holds HumanEval.jsonl.gz." >&2
  exit 2
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for variant in cached whole; do
  flag=()
  [ "$variant" = whole ] && flag=(--no-prefix-cache)
  echo "eval tests, prefix cache: $variant" >&2
  node dist/cli.js eval tests --data "$DATA" --limit "$LIMIT" --out "$WORK/$variant.json" --fresh \
    --progress text "${flag[@]}" >/dev/null
done
node bench/prefix-cache-summary.mjs "$WORK/cached.json" "$WORK/whole.json" bench/results/prefix-cache.json
