"""question-generator: the practice loop's generator-rewards.jsonl (R_G per proposed question) trains
the question generator on the questions that beat their prompt's mean R_G."""

import json
from pathlib import Path

import torch
from conftest import flags, run_job


def _rows() -> list[dict]:
    rows = []
    for topic in ("sums", "primes"):
        prompt = f"Write one new, self-contained practice problem about {topic}."
        rows.append({"prompt": prompt, "completion": f"Problem: a checkable question about {topic}.", "reward": 0.9, "kept": True})
        rows.append({"prompt": prompt, "completion": "Problem: something vague.", "reward": 0.2, "kept": False})
    rows.append({"prompt": "Write one new problem about angles.", "completion": "Problem: angles.", "reward": 0.3, "kept": False})
    return rows


def test_the_question_generator_trains_on_questions_above_their_prompts_mean_r_g(tmp_path, tiny_base):
    from safetensors.torch import load_file

    data = tmp_path / "generator-rewards.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _rows()) + "\n")
    code, events, stderr = run_job(
        "question-generator",
        *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", max_steps=2, save_steps=2, batch_size=2, learning_rate="1e-3"),
    )
    assert code == 0, stderr[-3000:]
    assert any("2 of 5 questions beat their prompt's mean R_G" in e.get("message", "") for e in events), events[:2]
    done = events[-1]
    assert done["metrics"]["trained_on"] == 2 and done["metrics"]["trained_mean_r_g"] == 0.9
    before, after = load_file(str(tiny_base / "model.safetensors")), load_file(str(Path(done["output"]) / "model.safetensors"))
    assert any(not torch.equal(before[k], after[k]) for k in before if k in after)


def test_rewards_that_are_all_alike_are_refused(tmp_path):
    data = tmp_path / "generator-rewards.jsonl"
    data.write_text("\n".join(json.dumps({**r, "reward": 0.5}) for r in _rows()) + "\n")
    code, events, _ = run_job("question-generator", "--data", str(data))
    assert code == 1 and "nothing to learn from" in events[-1]["message"]
