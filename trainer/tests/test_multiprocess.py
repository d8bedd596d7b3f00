"""The scale-out path on CPU: the same job in two processes with the gloo backend.

On GPUs the command is `accelerate launch --multi_gpu --num_processes N -m stepwise_trainer ...`,
which starts the processes through torch's elastic launcher; accelerate's CPU path needs MPI,
so the test starts the same launcher directly (`torch.distributed.run`), which sets the
WORLD_SIZE / RANK contract the Trainer and accelerate read, and the Trainer picks gloo on CPU.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_prm_under_accelerate_with_two_cpu_processes(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node",
        "2",
        "--master_port",
        "29531",
        "-m",
        "stepwise_trainer",
        "prm",
        "--base-model",
        str(tiny_base),
        "--data",
        str(trl_labels),
        "--output-dir",
        str(out),
        "--max-steps",
        "2",
        "--save-steps",
        "2",
        "--batch-size",
        "2",
        "--device",
        "cpu",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [e["type"] for e in events].count("done") == 1, "only the main process reports"
    assert any("2 process(es)" in e.get("message", "") for e in events), "the job ran distributed over two processes"
    assert (Path(events[-1]["output"]) / "config.json").exists()
