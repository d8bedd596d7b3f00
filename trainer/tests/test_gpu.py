"""The CUDA path of every job, run as the extension runs it (``--device cuda``), on the tiny model.

CI has no GPU, so these tests skip there; run them on a CUDA machine with ``pytest -m gpu``. They
check what only a GPU exercises: bf16 mixed precision, models moved between devices, and models
trained on the GPU that must still export to an ONNX graph the CPU engine runs.
"""

import io
import json
from pathlib import Path

import pytest
import torch
from conftest import REPO, TINY_GRPO, flags, run_job

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

MATH = REPO.parent / "shared" / "data" / "MATH-500.jsonl"


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def _changed(before: dict[str, torch.Tensor], after: dict[str, torch.Tensor]) -> list[str]:
    return [k for k in before if k in after and not torch.equal(before[k].float(), after[k].float())]


def test_prm_trained_on_cuda_exports_to_a_verified_onnx_scorer(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    code, events, stderr = run_job(
        "prm", *flags(base_model=tiny_base, data=trl_labels, output_dir=out, batch_size=2, learning_rate="1e-3", max_steps=4, save_steps=2, device="cuda")
    )
    assert code == 0, stderr[-3000:]
    done = events[-1]
    assert done["type"] == "done" and "after/f1" in done["metrics"], done
    final = Path(done["output"])

    onnx_dir = tmp_path / "onnx"
    code, events, stderr = run_job("export", "--model", str(final), "--output-dir", str(onnx_dir), "--quantize", "q8")
    assert code == 0, stderr[-3000:]
    report = json.loads((onnx_dir / "stepwise_export.json").read_text())
    assert report["task"] == "token-classification-prm" and report["verified"] is True


def test_prm_resumes_on_cuda_from_its_checkpoint(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    common = flags(base_model=tiny_base, data=trl_labels, output_dir=out, batch_size=2, learning_rate="1e-3", save_steps=2, device="cuda")
    code, _, stderr = run_job("prm", *common, *flags(max_steps=2))
    assert code == 0, stderr[-3000:]
    code, events, stderr = run_job("prm", *common, *flags(max_steps=4), "--resume")
    assert code == 0, stderr[-3000:]
    steps = [e["step"] for e in events if e["type"] == "progress" and e["step"] > 0]
    assert steps and min(steps) == 3, f"a resumed CUDA run should start after step 2, saw {steps}"


def test_grpo_on_cuda_moves_the_policy_and_saves_a_model_the_cpu_loads(tmp_path, tiny_base):
    """As in test_grpo_training: a test-only reward that differs within a group gives GRPO an advantage
    on a random model; the design's reward runs beside it."""
    from stepwise_trainer.events import EventWriter
    from stepwise_trainer.jobs import grpo
    from stepwise_trainer.rewards import completion_text
    from transformers import AutoModelForCausalLM

    def completion_length(prompts, completions, **_):
        return [len(completion_text(c)) / 100 for c in completions]

    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(4)) + "\n")
    cfg = grpo.GrpoConfig(base_model=str(tiny_base), data=str(data), output_dir=str(tmp_path / "run"), max_steps=2, save_steps=2, **TINY_GRPO, device="cuda")
    out = io.StringIO()
    grpo.run(cfg, EventWriter("grpo", stream=out), extra_rewards=[completion_length])
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    final = Path(events[-1]["output"])
    assert _changed(_weights(tiny_base), _weights(final)), "two GRPO steps on CUDA with non-zero advantages changed no parameter"
    model = AutoModelForCausalLM.from_pretrained(final, dtype=torch.float32)
    assert torch.isfinite(model(input_ids=torch.tensor([[1, 2, 3]])).logits).all()


def test_dpo_full_fine_tuning_on_cuda_changes_the_weights(tmp_path, tiny_base):
    data = tmp_path / "pairs.jsonl"
    rows = [
        {"prompt": f"What is {i}+{i}?", "chosen": f"{2 * i}", "rejected": f"{2 * i + 1}", "r_cons": 0.95, "r_sep": 0.5, "r_stab": 0.9, "r_g": 0.8}
        for i in range(6)
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, events, stderr = run_job(
        "dpo",
        *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", max_steps=2, save_steps=2, batch_size=2, learning_rate="1e-3", device="cuda"),
    )
    assert code == 0, stderr[-3000:]
    assert _changed(_weights(tiny_base), _weights(Path(events[-1]["output"]))), "two DPO steps on CUDA changed no parameter"


@pytest.mark.skipif(not MATH.exists(), reason="MATH-500 is not at ../shared/data")
def test_sft_format_with_lora_on_cuda_reports_format_rates(tmp_path, tiny_base):
    code, events, stderr = run_job(
        "sft-format",
        *flags(
            base_model=tiny_base,
            math_data=MATH,
            output_dir=tmp_path / "run",
            examples=16,
            eval_problems=2,
            eval_max_new_tokens=8,
            max_steps=3,
            save_steps=3,
            batch_size=2,
            max_length=1024,
            learning_rate="1e-3",
            lora_r=8,
            device="cuda",
        ),
    )
    assert code == 0, stderr[-3000:]
    metrics = events[-1]["metrics"]
    assert 0 <= metrics["before/format_rate"] <= 1 and 0 <= metrics["after/format_rate"] <= 1


def test_full_fine_tuning_on_cuda_moves_norm_weights_at_the_default_learning_rate(tmp_path, tiny_base):
    """Weights kept in bf16 move in steps of 2^-7 near 1.0, so Adam's 5e-5 updates round away and the
    norm weights (all 1.0 in the tiny model) would leave training unchanged; fp32 master weights keep them."""
    data = tmp_path / "pairs.jsonl"
    rows = [
        {"prompt": f"What is {i}+{i}?", "chosen": f"{2 * i}", "rejected": f"{2 * i + 1}", "r_cons": 0.95, "r_sep": 0.5, "r_stab": 0.9, "r_g": 0.8}
        for i in range(6)
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, events, stderr = run_job(
        "dpo", *flags(base_model=tiny_base, data=data, output_dir=tmp_path / "run", max_steps=2, save_steps=2, batch_size=2, device="cuda")
    )
    assert code == 0, stderr[-3000:]
    before, after = _weights(tiny_base), _weights(Path(events[-1]["output"]))
    norms = [k for k in before if "norm" in k]
    assert norms, list(before)[:5]
    moved = [k for k in norms if not torch.equal(before[k].float(), after[k].float())]
    assert len(moved) == len(norms), f"{len(norms) - len(moved)} of {len(norms)} norm weights did not move"
    assert after[norms[0]].dtype == torch.float32
