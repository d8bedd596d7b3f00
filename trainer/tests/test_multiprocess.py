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
from conftest import TINY_RL, flags


def _launch(port: int, job: str, *args: str) -> list[dict]:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(port), "-m", "stepwise_trainer", job, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [e["type"] for e in events].count("done") == 1, "only the main process reports"
    assert (Path(events[-1]["output"]) / "config.json").exists()
    return events


@pytest.mark.slow
def test_prm_under_accelerate_with_two_cpu_processes(tmp_path, tiny_base, trl_labels):
    events = _launch(
        29531,
        "prm",
        *flags(base_model=tiny_base, data=trl_labels, output_dir=tmp_path / "run", max_steps=2, save_steps=2, batch_size=2, device="cpu"),
    )
    assert any("2 process(es)" in e.get("message", "") for e in events), "the job ran distributed over two processes"


# Two problems of two completions per step: one pass of two completions on each process.
TWO_PROCESS_GRPO = {**TINY_RL, "problems_per_step": 2, "max_steps": 1, "save_steps": 1, "device": "cpu"}


@pytest.mark.slow
def test_grpo_with_its_separate_verifier_under_two_cpu_processes(tmp_path, tiny_base):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(4)) + "\n")
    events = _launch(29532, "grpo", *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", **TWO_PROCESS_GRPO))
    assert any(e["type"] == "checkpoint" for e in events)


@pytest.mark.slow
def test_verifier_under_two_cpu_processes(tmp_path, tiny_base):
    data = tmp_path / "scored.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Compute {i} + {i}.", "proof": f"It is {2 * i + i % 2}.", "label": i % 2 == 0}) for i in range(4)) + "\n")
    events = _launch(29533, "verifier", *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", **TWO_PROCESS_GRPO))
    assert any(e["type"] == "checkpoint" for e in events)


@pytest.mark.slow
def test_orm_under_two_cpu_processes(tmp_path, tiny_base, trl_labels):
    events = _launch(
        29534,
        "orm",
        *flags(base_model=tiny_base, data=trl_labels, output_dir=tmp_path / "run", max_steps=2, save_steps=2, batch_size=2, device="cpu"),
    )
    assert any("2 process(es)" in e.get("message", "") for e in events)


@pytest.mark.slow
def test_question_generator_under_two_cpu_processes(tmp_path, tiny_base):
    data = tmp_path / "generator-rewards.jsonl"
    prompt = "Write one new, self-contained practice problem."
    rewards = [0.9, 0.8, 0.1, 0.2, 0.95, 0.05]
    data.write_text("\n".join(json.dumps({"prompt": prompt, "completion": f"Problem: question {i}.", "reward": r}) for i, r in enumerate(rewards)) + "\n")
    events = _launch(
        29535, "question-generator", *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", max_steps=1, save_steps=1, batch_size=1, device="cpu")
    )
    assert events[-1]["metrics"]["trained_on"] == 3
