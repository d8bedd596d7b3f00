import json
from pathlib import Path

import torch
from conftest import run_job


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def test_prm_trains_reports_auroc_and_saves_checkpoints(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    code, events, stderr = run_job("prm", "--base-model", str(tiny_base), "--data", str(trl_labels), "--output-dir", str(out), "--max-steps", "4", "--save-steps", "2", "--batch-size", "2", "--learning-rate", "1e-3")
    assert code == 0, stderr[-2000:]
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "done" and "checkpoint" in kinds and "metric" in kinds
    done = events[-1]
    assert "before/f1" in done["metrics"] and "after/f1" in done["metrics"]
    # The classification head learned something: its weights differ from the fresh head's.
    final = Path(done["output"])
    assert (final / "config.json").exists()
    pointer = (out / "checkpoints" / "latest").read_text().strip()
    assert pointer == "step-000004"
    meta = json.loads((out / "checkpoints" / pointer / "meta.json").read_text())
    assert meta["step"] == 4 and meta["job"] == "prm"


def test_prm_parameters_change_and_resume_continues(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    code, _, stderr = run_job("prm", "--base-model", str(tiny_base), "--data", str(trl_labels), "--output-dir", str(out), "--max-steps", "2", "--save-steps", "2", "--batch-size", "2", "--learning-rate", "1e-3")
    assert code == 0, stderr[-2000:]
    first = _weights(out / "final")
    code, events, stderr = run_job("prm", "--base-model", str(tiny_base), "--data", str(trl_labels), "--output-dir", str(out), "--max-steps", "4", "--save-steps", "2", "--batch-size", "2", "--learning-rate", "1e-3", "--resume")
    assert code == 0, stderr[-2000:]
    steps = [e["step"] for e in events if e["type"] == "progress" and e["step"] > 0]
    assert steps and min(steps) == 3, f"resumed run should start after step 2, saw {steps}"
    second = _weights(out / "final")
    changed = [k for k in first if not torch.equal(first[k], second[k])]
    assert changed, "training from the checkpoint changed no parameter"


def test_bad_options_end_with_an_error_event(tmp_path):
    code, events, _ = run_job("prm", "--data", str(tmp_path / "missing.jsonl"))
    assert code == 2
    assert events[-1]["type"] == "error" and "does not exist" in events[-1]["message"]
    code, events, _ = run_job("prm", "--max-steps", "0", "--data", "")
    assert code == 2 and "max_steps" in events[-1]["message"]
