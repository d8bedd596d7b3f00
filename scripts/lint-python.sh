#!/usr/bin/env bash
# Lints and format-checks the Python code (trainer, benchmarks and the product's python/ helpers) with ruff from the project's
# .venv (installed by scripts/setup.sh with the trainer's test extras), using the trainer's rules.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF=.venv/bin/ruff
if [ ! -x "$RUFF" ]; then
  echo "ruff is not installed in .venv: run bash scripts/setup.sh first." >&2
  exit 1
fi
"$RUFF" check --config trainer/pyproject.toml trainer bench python
"$RUFF" format --check --config trainer/pyproject.toml trainer bench python
