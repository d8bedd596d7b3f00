#!/usr/bin/env bash
# Builds the tiny test models (2-layer Llamas, seeded random weights, real SmolLM2 tokenizer):
# a generator in .cache/models/tiny-llama (or $STEPWISE_TINY_MODEL_DIR) and a process reward
# model in .cache/models/tiny-prm (or $STEPWISE_TINY_PRM_DIR). A few seconds each; a folder that
# already holds a verified build is kept (pass --force to rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${STEPWISE_TINY_MODEL_DIR:-$ROOT/.cache/models/tiny-llama}
PRM_OUT=${STEPWISE_TINY_PRM_DIR:-$ROOT/.cache/models/tiny-prm}
source "$ROOT/scripts/lib-trainer-venv.sh"
ensure_trainer_venv "$ROOT"
export PYTHONPATH="$ROOT/trainer${PYTHONPATH:+:$PYTHONPATH}"

verified() {
  [ "${FORCE:-}" != 1 ] && [ -f "$1/${2:-config.json}" ] && "$ROOT/.venv/bin/python" -c \
    "import sys; from stepwise_trainer.export_folder import check_export_folder as c; c(sys.argv[1])" "$1" 2>/dev/null
}
[ "${1:-}" = "--force" ] && FORCE=1

if verified "$OUT"; then
  echo "Tiny model already built and verified in $OUT" >&2
else
  echo "Building the tiny test model into $OUT" >&2
  "$ROOT/.venv/bin/python" -W ignore -m stepwise_trainer.tiny_model --out "$OUT" --seed 0
fi
if verified "$PRM_OUT" reference_scores.json; then
  echo "Tiny PRM already built and verified in $PRM_OUT" >&2
else
  echo "Building the tiny test PRM into $PRM_OUT" >&2
  "$ROOT/.venv/bin/python" -W ignore -m stepwise_trainer.tiny_model --prm --out "$PRM_OUT" --seed 0
fi
