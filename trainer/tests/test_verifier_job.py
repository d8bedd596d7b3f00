"""The verifier job: scored proofs (a person's grade, a right/wrong label, or a reference answer's
outcome) train the verifier on the product's verifier prompt, and grpo loads what it saves."""

import json

import pytest
from conftest import TINY_GRPO, flags, run_job
from stepwise_trainer.jobs.verifier import proof_label, scored_proofs


def _rows(n: int, offset: int = 0) -> list[dict]:
    rows = []
    for i in range(offset, offset + n):
        right = i % 2 == 0
        proof = f"{i} + {i} = {2 * i if right else 2 * i + 1}, so the answer is $\\boxed{{{2 * i if right else 2 * i + 1}}}$."
        kind = i % 3
        label = {"score": 1 if right else 0} if kind == 0 else {"label": right} if kind == 1 else {"answer": str(2 * i)}
        rows.append({"problem": f"Compute {i} + {i}.", "proof": proof, **label})
    return rows


def test_labels_come_from_grades_right_wrong_marks_and_reference_answers(tmp_path):
    data = tmp_path / "scored.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _rows(6)) + "\n")
    assert [r["score"] for r in scored_proofs(str(data))] == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert proof_label({"proof": "$\\boxed{\\dfrac{1}{2}}$", "answer": "\\frac{1}{2}"}) == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"problem": "p", "proof": "q", "score": 0.3}) + "\n")
    with pytest.raises(ValueError, match="rows \\[1\\]"):
        scored_proofs(str(bad))


def test_verifier_trains_and_grpo_grades_with_what_it_saved(tmp_path, tiny_base):
    data, held_out = tmp_path / "scored.jsonl", tmp_path / "held-out.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _rows(4)) + "\n")
    held_out.write_text("\n".join(json.dumps(r) for r in _rows(2, offset=10)) + "\n")
    code, events, stderr = run_job(
        "verifier",
        *flags(
            base_model=tiny_base, data=data, eval_data=held_out, output_dir=tmp_path / "verifier", max_steps=1, save_steps=1, eval_max_new_tokens=4, **TINY_GRPO
        ),
    )
    assert code == 0, stderr[-3000:]
    assert any("4 scored proofs (2 scored 0, 0 scored 0.5, 2 scored 1); 2 held out" in e.get("message", "") for e in events), events[:3]
    logged = {k for e in events if e["type"] == "metric" for k in e["data"]}
    assert "rewards/verifier_training_reward/mean" in logged
    done = events[-1]
    for when in ("before", "after"):
        assert 0 <= done["metrics"][f"{when}/heldout_grade_error"] <= 1 and 0 <= done["metrics"][f"{when}/heldout_auroc"] <= 1
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps({"problem": "Prove that 1 = 1."}) + "\n" + json.dumps({"problem": "Prove that 2 = 2."}) + "\n")
    code, events, stderr = run_job(
        "grpo", *flags(base_model=tiny_base, data=problems, output_dir=tmp_path / "grpo", max_steps=1, save_steps=1, verifier=done["output"], **TINY_GRPO)
    )
    assert code == 0, stderr[-3000:]
    assert any(f"verifier: {done['output']};" in e.get("message", "") for e in events)


def test_format_phase_teaches_the_verdict_format_before_grpo_and_a_resumed_job_reuses_it(tmp_path, tiny_base):
    from stepwise_trainer.jobs.verifier import format_verdict
    from stepwise_trainer.rewards import parse_verdict

    # What the phase trains on is what the GRPO reward and the product read.
    assert [parse_verdict(format_verdict(s)) for s in (0.0, 0.5, 1.0)] == [0.0, 0.5, 1.0]
    data = tmp_path / "scored.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in _rows(4)) + "\n")
    out = tmp_path / "verifier"
    options = dict(base_model=tiny_base, data=data, output_dir=out, max_steps=1, save_steps=1, format_steps=2, format_check=2, **TINY_GRPO)
    code, events, stderr = run_job("verifier", *flags(**options))
    assert code == 0, stderr[-3000:]
    done = events[-1]
    # A random tiny model writes no verdict in the format; the figures say so rather than guess.
    assert done["metrics"]["format/rate_before"] == 0.0 and 0 <= done["metrics"]["format/rate_after"] <= 1
    assert done["metrics"]["format/train_loss"] > 0
    assert (out / "format" / "final" / "config.json").exists()
    assert "rewards/verifier_training_reward/mean" in {k for e in events if e["type"] == "metric" for k in e["data"]}
    # Resumed, the job continues GRPO from the saved format model instead of training it again.
    code, events, stderr = run_job("verifier", *flags(**{**options, "max_steps": 2}), "--resume")
    assert code == 0, stderr[-3000:]
    assert any("format phase already done" in e.get("message", "") for e in events), events[:3]
    assert "format/rate_before" not in events[-1]["metrics"]
