"""grpo, dpo and export on the tiny model: a few steps each, parameters change, export validates."""

import json
from pathlib import Path

import pytest
import torch
from conftest import TINY_GRPO, flags, run_job


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
    assert "must be divisible by batch_size" in events[-1]["message"]
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
            **TINY_GRPO,
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


def test_grpo_measures_the_held_out_reward_before_and_after_training(tmp_path, tiny_base):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(4)) + "\n")
    held_out = tmp_path / "held-out.jsonl"
    held_out.write_text(json.dumps({"problem": "Prove that 7 * 1 = 7."}) + "\n" + json.dumps({"problem": "Prove that 2 + 0 = 2."}) + "\n")
    code, events, stderr = run_job(
        "grpo", *flags(base_model=tiny_base, data=data, eval_data=held_out, output_dir=tmp_path / "run", max_steps=1, save_steps=1, **TINY_GRPO)
    )
    assert code == 0, stderr[-3000:]
    messages = [e.get("message", "") for e in events if e["type"] == "progress"]
    assert "1 held-out problems (1 also in --data left out)" in messages, messages[:5]
    assert "held-out reward after training: problem 1 of 1" in messages
    metrics = events[-1]["metrics"]
    for when in ("before", "after"):
        assert 0 <= metrics[f"{when}/heldout_reward"] <= 1 and 0 <= metrics[f"{when}/heldout_format_rate"] <= 1, metrics
        # Every held-out completion is kept in the run folder, for paired comparisons per problem.
        kept = [json.loads(line) for line in (tmp_path / "run" / f"held-out-{when}.jsonl").read_text().splitlines()]
        assert {k["problem"] for k in kept} == {"Prove that 7 * 1 = 7."} and len(kept) == TINY_GRPO["num_generations"]
        assert sum(k["reward"] for k in kept) / len(kept) == pytest.approx(metrics[f"{when}/heldout_reward"])


def test_grpo_refuses_held_out_problems_that_are_all_trained_on(tmp_path, tiny_base):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(2)) + "\n")
    code, events, _ = run_job("grpo", *flags(base_model=tiny_base, data=data, eval_data=data, output_dir=tmp_path / "run", max_steps=1, **TINY_GRPO))
    assert code != 0 and "none of its 2 problems is held out" in events[-1]["message"]


def test_lora_merged_for_the_after_measurement_is_saved_once(tmp_path, tiny_base):
    """The after-training measurement runs on merged LoRA weights (fast decoding); it must write what
    the unmerged model writes, and the saved model must not fold the adapter in a second time."""
    import torch
    from peft import get_peft_model
    from stepwise_trainer.config import CommonConfig
    from stepwise_trainer.jobs.common import lora_config, merge_lora_for_generation, save_final
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    tokenizer = load_tokenizer(str(tiny_base))
    model = get_peft_model(load_causal_lm(str(tiny_base), torch.float32), lora_config(8, 16, "CAUSAL_LM"))
    torch.manual_seed(0)
    for name, p in model.named_parameters():
        if "lora_B" in name:
            torch.nn.init.normal_(p, std=0.5)  # a trained adapter: B starts at zero and would change nothing
    ids = tokenizer("Prove that 1 + 1 = 2.", return_tensors="pt")

    def logits(m):
        with torch.no_grad():
            return m(**ids).logits

    adapted = logits(model)
    assert not torch.allclose(logits(load_causal_lm(str(tiny_base), torch.float32)), adapted, atol=1e-2), "the adapter must matter"
    merge_lora_for_generation(model)
    assert torch.allclose(logits(model), adapted, atol=1e-4)
    final = save_final(model, tokenizer, CommonConfig(output_dir=str(tmp_path / "run")))
    assert torch.allclose(logits(load_causal_lm(str(final), torch.float32)), adapted, atol=1e-4), "the adapter was folded in twice"
