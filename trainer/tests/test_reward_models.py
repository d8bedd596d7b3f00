"""PRM with three label classes, the ORM baseline, and the PRM vs ORM vs majority-vote table."""

import json
from pathlib import Path

from conftest import flags, run_job


def _solutions(problem: int, answer: int, given: list[int]) -> list[dict]:
    """One row per candidate: two steps, the second boxing ``given[k]``; steps labelled 1 / -1 by rightness, a neutral first step."""
    return [
        {
            "prompt": f"Compute {problem} + {problem}.",
            "completions": [f"We add {problem} to itself.", f"So the answer is $\\boxed{{{g}}}$."],
            "labels": [0, 1 if g == answer else -1],
            "answer": str(answer),
        }
        for g in given
    ]


def test_prm_keeps_neutral_steps_apart_with_three_classes(tmp_path, tiny_base):
    data = tmp_path / "ternary.jsonl"
    data.write_text("\n".join(json.dumps(r) for i in range(6) for r in _solutions(i, 2 * i, [2 * i, 2 * i + 1])) + "\n")
    code, events, stderr = run_job(
        "prm", *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "prm", max_steps=2, save_steps=2, batch_size=2, label_classes=3)
    )
    assert code == 0, stderr[-3000:]
    final = Path(events[-1]["output"])
    assert len(json.loads((final / "config.json").read_text())["id2label"]) == 3
    assert "after/auroc" in events[-1]["metrics"], "neutral steps count as not wrong when P(correct) is measured"
    # The editor reads P(correct) at the export's correct_label: index 1 is "positive" in the 3-class head too.
    code, events, stderr = run_job("export", "--model", str(final), "--output-dir", str(tmp_path / "onnx"))
    assert code == 0, stderr[-3000:]
    report = json.loads((tmp_path / "onnx" / "stepwise_export.json").read_text())
    assert report["verified"] is True and report["correct_label"] == 1 and report["num_labels"] == 3, report
    code, events, _ = run_job("orm", *flags(base_model=tiny_base, data=data, label_classes=3))
    assert code == 2 and "--label-classes 2" in events[-1]["message"]


def test_orm_trains_on_outcomes_and_the_table_compares_it_with_the_prm_and_majority_vote(tmp_path, tiny_base):
    train = tmp_path / "train.jsonl"
    train.write_text("\n".join(json.dumps(r) for i in range(6) for r in _solutions(i, 2 * i, [2 * i, 2 * i + 1])) + "\n")
    common = {"base_model": tiny_base, "data": train, "max_steps": 2, "save_steps": 2, "batch_size": 2}
    code, prm_events, stderr = run_job("prm", *flags(output_dir=tmp_path / "prm", **common))
    assert code == 0, stderr[-3000:]
    code, orm_events, stderr = run_job("orm", *flags(output_dir=tmp_path / "orm", **common))
    assert code == 0, stderr[-3000:]
    assert any("12 solutions: 6 right, 6 wrong as a whole" in e.get("message", "") for e in orm_events)
    held_out = tmp_path / "held-out.jsonl"
    # Problem 20: the majority (41, 41) is wrong, one candidate is right. Problem 30: the majority (60, 60) is right.
    held_out.write_text("\n".join(json.dumps(r) for r in _solutions(20, 40, [41, 40, 41]) + _solutions(30, 60, [60, 61, 60])) + "\n")
    code, events, stderr = run_job(
        "rm-compare", *flags(data=held_out, prm=prm_events[-1]["output"], orm=orm_events[-1]["output"], output_dir=tmp_path / "table")
    )
    assert code == 0, stderr[-3000:]
    metrics = events[-1]["metrics"]
    assert metrics["majority_vote/accuracy"] == 0.5 and metrics["any_right/accuracy"] == 1.0
    assert 0 <= metrics["PRM/accuracy"] <= 1 and 0 <= metrics["ORM/accuracy"] <= 1
    table = (tmp_path / "table" / "rm-compare.md").read_text()
    assert [line.split("|")[1].strip() for line in table.splitlines()[2:]] == ["majority vote", "PRM", "ORM", "any right"]
