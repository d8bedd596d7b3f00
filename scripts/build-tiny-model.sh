#!/usr/bin/env bash
# Builds the tiny test model (2-layer Llama, seeded random weights, real SmolLM2 tokenizer)
# into .cache/models/tiny-llama (or $STEPWISE_TINY_MODEL_DIR). A few seconds; skipped when a
# verified build is already there (pass --force to rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${STEPWISE_TINY_MODEL_DIR:-$ROOT/.cache/models/tiny-llama}
source "$ROOT/scripts/lib-trainer-venv.sh"
ensure_trainer_venv "$ROOT"
export PYTHONPATH="$ROOT/trainer${PYTHONPATH:+:$PYTHONPATH}"
if [ "${1:-}" != "--force" ] && "$ROOT/.venv/bin/python" -c \
  "import sys; from stepwise_trainer.export_folder import check_export_folder as c; c(sys.argv[1])" "$OUT" 2>/dev/null; then
  echo "Tiny model already built and verified in $OUT" >&2
  exit 0
fi
echo "Building the tiny test model into $OUT" >&2
exec "$ROOT/.venv/bin/python" -W ignore -m stepwise_trainer.tiny_model --out "$OUT" --seed 0
