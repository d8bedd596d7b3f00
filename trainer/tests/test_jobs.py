"""grpo, dpo and export on the tiny model: a few steps each, parameters change, export validates."""

import json
from pathlib import Path

import torch
from conftest import TINY_RL, flags, run_job


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def test_dpo_trains_only_on_reliable_pairs(tmp_path, tiny_base):
    data = tmp_path / "pairs.jsonl"
    rows = [
        {"prompt": f"What is {i}+{i}?", "chosen": f"{2 * i}", "rejected": f"{2 * i + 1}", "r_cons": 0.95, "r_sep": 0.5, "r_stab": 0.9, "r_g": 0.8}
        for i in range(6)
    ] + [{"prompt": "Unreliable?", "chosen": "a", "rejected": "b", "r_cons": 0.2, "r_sep": None, "r_stab": 0.5, "r_g": 0.1}]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "run"
    code, events, stderr = run_job("dpo", *flags(base_model=tiny_base, data=data, output_dir=out, max_steps=2, save_steps=2, batch_size=2, learning_rate=1e-3))
    assert code == 0, stderr[-3000:]
    done = events[-1]
    assert done["metrics"]["pairs"] == 6 and done["metrics"]["dropped_unreliable"] == 1
    before, after = _weights(tiny_base), _weights(Path(done["output"]))
    assert any(not torch.equal(before[k], after[k]) for k in before if k in after)


def test_grpo_rejects_a_batch_not_divisible_by_k(tmp_path):
    data = tmp_path / "p.jsonl"
    data.write_text('{"problem": "Prove 1 = 1."}\n')
    code, events, _ = run_job("grpo", "--data", str(data), "--num-generations", "4", "--batch-size", "3")
    assert code == 2
    assert "divisible by num_generations" in events[-1]["message"]
    code, events, _ = run_job("grpo", "--data", str(data), "--num-generations", "1", "--batch-size", "2")
    assert code == 2 and "at least 2" in events[-1]["message"]


def test_grpo_runs_steps_with_the_self_verification_reward(tmp_path, tiny_base):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(4)) + "\n")
    out = tmp_path / "run"
    code, events, stderr = run_job(
        "grpo",
        *flags(
            base_model=tiny_base,
            data=data,
            output_dir=out,
            max_steps=2,
            save_steps=2,
            **TINY_RL,
        ),
    )
    assert code == 0, stderr[-3000:]
    metrics = [e for e in events if e["type"] == "metric"]
    assert any(any(k.startswith("rewards/") or k == "reward" for k in m["data"]) for m in metrics), metrics[:3]
    assert events[-1]["type"] == "done"


def test_export_writes_a_verified_onnx_folder(tmp_path, tiny_base):
    out = tmp_path / "onnx"
    code, events, stderr = run_job("export", "--model", str(tiny_base), "--output-dir", str(out), "--quantize", "q8")
    assert code == 0, stderr[-3000:]
    done = events[-1]
    assert done["onnx"] == str(out)
    assert done["metrics"]["max_abs_logit_diff"] <= done["metrics"]["atol"]
    assert (out / "onnx" / "model.onnx").exists() and (out / "onnx" / "model_quantized.onnx").exists()
    assert json.loads((out / "stepwise_export.json").read_text())["verified"] is True
