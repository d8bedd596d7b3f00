"""Scale-out: the same job under `accelerate launch --num_processes 2` (gloo on CPU)."""

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_prm_runs_on_two_processes_with_one_protocol_stream(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
        "--dynamo_backend", "no", "--cpu", "-m", "stepwise_trainer", "prm", "--base-model", str(tiny_base), "--data", str(trl_labels),
        "--output-dir", str(out), "--max-steps", "2", "--save-steps", "2", "--batch-size", "2", "--learning-rate", "1e-3", "--device", "cpu",
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]  # only rank 0 speaks; every line is JSON
    assert [e["type"] for e in events].count("done") == 1
    # Rank 1 ran the same job; its events went to the log, not to the protocol stream.
    assert sum(1 for line in proc.stderr.splitlines() if line.startswith("{") and '"type": "done"' in line) == 1
    assert (out / "checkpoints" / "latest").read_text().strip() == "step-000002"
    assert json.loads((out / "checkpoints" / "step-000002" / "meta.json").read_text())["step"] == 2
    assert (out / "final" / "model.safetensors").exists()
