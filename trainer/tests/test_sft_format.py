from pathlib import Path

import pytest
from conftest import REPO, flags, run_job

MATH = REPO.parent / "shared" / "data" / "MATH-500.jsonl"


@pytest.mark.skipif(not MATH.exists(), reason="MATH-500 is not at ../shared/data")
def test_sft_format_runs_a_few_steps_and_reports_format_rates(tmp_path, tiny_base):
    out = tmp_path / "run"
    code, events, stderr = run_job(
        "sft-format",
        *flags(
            base_model=tiny_base,
            math_data=MATH,
            output_dir=out,
            examples=16,
            eval_problems=2,
            eval_max_new_tokens=8,
            max_steps=3,
            save_steps=3,
            batch_size=2,
            max_length=1024,
            learning_rate=1e-3,
        ),
    )
    assert code == 0, stderr[-3000:]
    done = events[-1]
    assert done["type"] == "done"
    assert 0 <= done["metrics"]["before/format_rate"] <= 1 and 0 <= done["metrics"]["after/format_rate"] <= 1
    assert done["metrics"]["examples"] == 16
    assert (Path(done["output"]) / "config.json").exists()
    # Generation for the format check is the slow part on a CPU; the editor shows which problem it is on.
    messages = [e.get("message", "") for e in events if e["type"] == "progress"]
    assert "format check before training: problem 2 of 2" in messages
    assert "format check after training: problem 2 of 2" in messages


def test_examples_teach_format_and_honest_scores():
    from stepwise_trainer.jobs.sft_format import build_examples
    from stepwise_trainer.rewards import parse_proof_output

    rows = [{"problem": f"What is {i}+1?", "solution": f"We add: $\\boxed{{{i + 1}}}$.", "answer": str(i + 1)} for i in range(6)]
    examples = build_examples(rows, 4, seed=0)
    parsed = [parse_proof_output(e["completion"][0]["content"]) for e in examples]
    assert all(p.format_reward == 1 for p in parsed)
    assert sorted(p.self_score for p in parsed) == [0.0, 0.0, 1.0, 1.0]
