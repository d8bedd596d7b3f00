import json
from pathlib import Path

import torch
from conftest import flags, run_job


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def train_prm(out: Path, base: Path, data: Path, resume: bool = False, **options: object) -> tuple[int, list[dict], str]:
    """Runs the prm job on the tiny base model; ``options`` are the job's options (max_steps="4")."""
    args = flags(base_model=base, data=data, output_dir=out, batch_size=2, learning_rate="1e-3", **options)
    return run_job("prm", *args, *(["--resume"] if resume else []))


def test_prm_trains_reports_auroc_and_saves_checkpoints(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    code, events, stderr = train_prm(out, tiny_base, trl_labels, max_steps="4", save_steps="2")
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
    code, _, stderr = train_prm(out, tiny_base, trl_labels, max_steps="2", save_steps="2")
    assert code == 0, stderr[-2000:]
    first = _weights(out / "final")
    code, events, stderr = train_prm(out, tiny_base, trl_labels, max_steps="4", save_steps="2", resume=True)
    assert code == 0, stderr[-2000:]
    steps = [e["step"] for e in events if e["type"] == "progress" and e["step"] > 0]
    assert steps and min(steps) == 3, f"resumed run should start after step 2, saw {steps}"
    second = _weights(out / "final")
    changed = [k for k in first if not torch.equal(first[k], second[k])]
    assert changed, "training from the checkpoint changed no parameter"


def test_prm_with_lora_trains_the_head_whole_and_saves_a_merged_model(tmp_path, tiny_base, trl_labels):
    """--lora-r on a token classifier: the adapters go on the body, the fresh head is trained whole
    (an adapter on the head too made PEFT refuse the model), and OUT/final is a plain model."""
    out = tmp_path / "run"
    code, events, stderr = train_prm(out, tiny_base, trl_labels, max_steps="2", save_steps="2", lora_r="4")
    assert code == 0, stderr[-2000:]
    final = Path(events[-1]["output"])
    weights = _weights(final)
    assert not [k for k in weights if "lora_" in k], "the adapters were merged into the saved model"
    assert any(k.startswith("score.") for k in weights), sorted(weights)[:8]


def test_same_labels_and_seed_give_the_same_prm(tmp_path, tiny_base, trl_labels):
    """The new classification head is drawn from --seed too, so a rerun is the same model and two
    runs on different labels differ only by what the labels taught."""
    finals = []
    for name in ("a", "b"):
        code, events, stderr = train_prm(tmp_path / name, tiny_base, trl_labels, max_steps="1", seed="7")
        assert code == 0, stderr[-2000:]
        finals.append(_weights(Path(events[-1]["output"])))
    different = [k for k in finals[0] if not torch.equal(finals[0][k], finals[1][k])]
    assert not different, f"two runs with --seed 7 differ in {different[:3]}"


def test_few_labelled_solutions_all_train(tmp_path, tiny_base, trl_labels):
    """Below --eval-min-solutions nothing is held out: a person's few labels all reach the model."""
    few = tmp_path / "few.jsonl"
    few.write_text("".join(trl_labels.read_text().splitlines(keepends=True)[:3]))
    code, events, stderr = train_prm(tmp_path / "run", tiny_base, few, max_steps="1")
    assert code == 0, stderr[-2000:]
    first = next(e for e in events if e["type"] == "progress")
    assert first["message"].startswith("3 training and 0 held-out"), first["message"]
    assert not any(k.startswith("before/") for k in events[-1]["metrics"])


def test_held_out_solutions_come_from_problems_never_trained_on(tmp_path, tiny_base):
    """Several solutions per problem, as the loop labels them: the before/after AUROC must be read on
    problems the PRM never saw, not on siblings of its training solutions."""
    from stepwise_trainer.jobs.prm import split_by_problem

    prompts = [f"problem {i // 4}" for i in range(40)]
    held, train = split_by_problem(prompts, 0.2, seed=3, min_solutions=10)
    assert len(held) >= 8 and len(held) + len(train) == 40
    assert not {prompts[i] for i in held} & {prompts[i] for i in train}
    assert split_by_problem(prompts, 0.2, seed=3, min_solutions=10) == (held, train)

    rows = [{"prompt": p, "completions": ["1 + 1 = 2.", "So 2."], "labels": [True, i % 2 == 0]} for i, p in enumerate(prompts)]
    data = tmp_path / "labels.trl.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, events, stderr = train_prm(tmp_path / "run", tiny_base, data, max_steps="1")
    assert code == 0, stderr[-2000:]
    first = next(e for e in events if e["type"] == "progress")
    assert first["message"].startswith(f"{len(train)} training and {len(held)} held-out solutions (2 held-out problems)"), first["message"]


def test_bad_options_end_with_an_error_event(tmp_path):
    code, events, _ = run_job("prm", "--data", str(tmp_path / "missing.jsonl"))
    assert code == 2
    assert events[-1]["type"] == "error" and "does not exist" in events[-1]["message"]
    code, events, _ = run_job("prm", "--max-steps", "0", "--data", "")
    assert code == 2 and "max_steps" in events[-1]["message"]


def test_trained_prm_exports_to_a_verified_onnx_step_scorer(tmp_path, tiny_base, trl_labels):
    """The chain the extension relies on: step labels -> prm job -> export job -> ONNX folder whose
    step probabilities match PyTorch's and whose report tells the TypeScript scorer how to read it."""
    import onnxruntime as ort
    from stepwise_trainer.onnx_prm_export import prm_input
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    out = tmp_path / "run"
    code, events, stderr = train_prm(out, tiny_base, trl_labels, max_steps="2", save_steps="2")
    assert code == 0, stderr[-2000:]
    final = Path(events[-1]["output"])
    meta = json.loads((final / "stepwise_prm.json").read_text())
    assert meta["step_separator"] == "\n" and meta["correct_label"] == 1

    onnx_dir = tmp_path / "onnx"
    code, events, stderr = run_job("export", "--model", str(final), "--output-dir", str(onnx_dir), "--quantize", "q8,q4")
    assert code == 0, stderr[-2000:]
    done = events[-1]
    assert done["type"] == "done" and done["onnx"] == str(onnx_dir)
    report = json.loads((onnx_dir / "stepwise_export.json").read_text())
    assert report["task"] == "token-classification-prm" and report["verified"] is True
    assert report["step_separator"] == "\n" and report["correct_label"] == 1 and report["num_labels"] == 2
    # q4 is refused for a PRM (its two logits move too far); fp32 and q8 are written.
    assert set(report["files"]) == {"fp32", "q8"}
    assert (onnx_dir / "tokenizer.json").exists()

    # Score one solution independently of the exporter's own check: PyTorch vs onnxruntime.
    tok = AutoTokenizer.from_pretrained(final)
    model = AutoModelForTokenClassification.from_pretrained(final).eval()
    ids, ends = prm_input(tok, "Compute 3 + 3.", ["3 + 3 = 6.", "So the answer is 6."], "\n")
    assert len(ends) == 2 and ends[-1] == len(ids) - 1
    with torch.no_grad():
        torch_probs = model(input_ids=torch.tensor([ids])).logits.softmax(-1)[0, ends, 1].numpy()
    session = ort.InferenceSession(str(onnx_dir / report["files"]["fp32"]))
    feed = {"input_ids": [ids], "attention_mask": [[1] * len(ids)]}
    import numpy as np

    logits = session.run(None, {k: np.array(v, dtype=np.int64) for k, v in feed.items()})[0][0]
    onnx_probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    assert np.abs(onnx_probs[ends, 1] - torch_probs).max() < 1e-4
