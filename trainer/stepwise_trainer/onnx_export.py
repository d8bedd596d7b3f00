"""Export a causal LM to an onnx-community-style folder and check it against PyTorch.

Stable API (the trainer's `export` job calls it):

- ``export_causal_lm(model, tokenizer, out_dir, quantize=("q8", "q4"), ...) -> dict``
  writes ``config.json``, ``generation_config.json``, the tokenizer files
  (``tokenizer.json``, ``tokenizer_config.json`` with ``chat_template``,
  ``special_tokens_map.json``) and ``onnx/model.onnx`` (fp32),
  ``onnx/model_quantized.onnx`` (q8: 8-bit MatMulNBits, block 32) and
  ``onnx/model_q4.onnx`` (4-bit MatMulNBits, block 32); verifies the fp32 graph against PyTorch with
  ``verify_onnx`` and raises ``ExportError`` when it disagrees. A PEFT model is merged
  (on a copy) first. Returns the report also written to ``stepwise_export.json``.
- ``verify_onnx(out_dir, model, prompts, atol, tokenizer=None) -> dict`` compares logits.
- ``check_export_folder(out_dir) -> dict`` checks that a folder holds a complete,
  verified export and returns its report; raises ``ExportFolderError`` otherwise.

Graph convention (optimum / onnx-community decoder with past): inputs ``input_ids``,
``attention_mask`` [batch, past+seq], ``position_ids`` (all int64) and
``past_key_values.{i}.key|value`` float32 [batch, kv_heads, past_seq, head_dim] (past_seq
may be 0); outputs ``logits`` [batch, seq, vocab] and ``present.{i}.key|value``.
Position ids come from the caller, so left padding works.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .export_folder import (  # noqa: F401  (re-exported: part of this module's API)
    ONNX_FILES,
    REPORT_FILE,
    TOKENIZER_FILES,
    ExportError,
    ExportFolderError,
    check_export_folder,
)

DEFAULT_PROMPTS = (
    "The derivative of x squared is",
    "def add(a, b):\n    return",
    "Lemma 1. For every natural number n, n + 0 = n. Proof.",
)
DEFAULT_ATOL = 1e-3
OPSET = 17


def _log(message: str) -> None:
    print(f"[onnx-export] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- model prep


def _prepare_model(model: torch.nn.Module) -> torch.nn.Module:
    """A float32, eval-mode, eager-attention model with any LoRA adapters merged."""
    if hasattr(model, "merge_and_unload"):  # a PEFT model: fold adapters into a copy
        model = copy.deepcopy(model).merge_and_unload()
    elif next(model.parameters()).dtype != torch.float32:
        model = copy.deepcopy(model)
    if any(p.dtype != torch.float32 for p in model.parameters()):
        model = model.float()
    model = model.eval()
    # Eager attention traces to plain MatMul/Softmax with an explicit additive mask,
    # which is what makes left padding and an empty past behave in the graph.
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation("eager")
    else:
        model.config._attn_implementation = "eager"
    return model


def _kv_shape(config: Any) -> tuple[int, int, int]:
    layers = int(config.num_hidden_layers)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or config.num_attention_heads)
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return layers, kv_heads, int(head_dim)


def io_names(num_layers: int) -> tuple[list[str], list[str]]:
    """Input and output names of the graph, in order."""
    inputs = ["input_ids", "attention_mask", "position_ids"]
    outputs = ["logits"]
    for i in range(num_layers):
        inputs += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        outputs += [f"present.{i}.key", f"present.{i}.value"]
    return inputs, outputs


class _FlatCacheLM(torch.nn.Module):
    """Takes the KV cache as flat tensors and returns logits plus the flat new cache."""

    def __init__(self, model: torch.nn.Module, num_layers: int):
        super().__init__()
        self.model = model
        self.num_layers = num_layers

    def forward(self, input_ids, attention_mask, position_ids, *past):
        from transformers import DynamicCache

        cache = DynamicCache()
        for i in range(self.num_layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=cache,
            use_cache=True,
            return_dict=True,
        )
        flat = [out.logits]
        for layer in out.past_key_values.layers:
            flat += [layer.keys, layer.values]
        return tuple(flat)


# --------------------------------------------------------------------------- export


def _export_fp32(model: torch.nn.Module, path: Path) -> None:
    layers, kv_heads, head_dim = _kv_shape(model.config)
    inputs, outputs = io_names(layers)
    batch, seq, past = 2, 3, 4
    vocab = int(model.config.vocab_size)
    ids = torch.randint(0, vocab, (batch, seq), dtype=torch.int64)
    mask = torch.ones(batch, past + seq, dtype=torch.int64)
    mask[1, :2] = 0  # a left-padded row, so no "all ones" shortcut is traced
    pos = (mask.cumsum(-1) - 1).clamp(min=0)[:, past:]
    kv = [torch.randn(batch, kv_heads, past, head_dim) for _ in range(2 * layers)]
    dynamic_axes: dict[str, dict[int, str]] = {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    for name in inputs[3:]:
        dynamic_axes[name] = {0: "batch_size", 2: "past_sequence_length"}
    for name in outputs[1:]:
        dynamic_axes[name] = {0: "batch_size", 2: "total_sequence_length"}
    wrapper = _FlatCacheLM(model, layers).eval()
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        raw = Path(tmp) / "model.onnx"
        torch.onnx.export(
            wrapper,
            (ids, mask, pos, *kv),
            str(raw),
            input_names=inputs,
            output_names=outputs,
            dynamic_axes=dynamic_axes,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
        _save_onnx(_load_onnx(raw), path)


def _load_onnx(path: Path):
    import onnx

    return onnx.load(str(path), load_external_data=True)


def _save_onnx(proto, path: Path) -> None:
    """One file when it fits protobuf's 2 GB limit, else weights in `<name>_data`."""
    import onnx

    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in (path, Path(str(path) + "_data")):
        if stale.exists():
            stale.unlink()
    if proto.ByteSize() < 2_000_000_000:
        onnx.save(proto, str(path))
    else:
        onnx.save(
            proto,
            str(path),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=path.name + "_data",
        )
    onnx.checker.check_model(str(path))


def _quantize_q8(src: Path, dst: Path) -> None:
    """8-bit weight-only MatMulNBits (block 32, int8 compute).

    Not `quantize_dynamic`: its per-tensor uint8 activations break on the activation
    outliers of small Llamas (SmolLM2-135M: 56% top-1 agreement with fp32, against 94%
    here), and this kernel also decodes faster on CPU.
    """
    _quantize_nbits(src, dst, bits=8)


def _quantize_q4(src: Path, dst: Path) -> None:
    """4-bit weight-only MatMulNBits (block 32, symmetric, int8 compute)."""
    _quantize_nbits(src, dst, bits=4)


def _quantize_nbits(src: Path, dst: Path, bits: int) -> None:
    import logging

    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    quantizer = MatMulNBitsQuantizer(_load_onnx(src), bits=bits, block_size=32, is_symmetric=True, accuracy_level=4)
    quantizer.process()
    _save_onnx(quantizer.model.model, dst)


def _write_metadata(model: torch.nn.Module, tokenizer: Any, out_dir: Path) -> None:
    config = copy.deepcopy(model.config)
    config.use_cache = True
    if hasattr(config, "_attn_implementation_internal"):
        config._attn_implementation_internal = None
    config.save_pretrained(out_dir)
    cfg_path = out_dir / "config.json"
    cfg = json.loads(cfg_path.read_text())
    for internal in ("_attn_implementation", "quantization_config", "_model_name_or_path"):
        cfg.pop(internal, None)
    # Older readers look for rope_theta at the top level (transformers 5 nests it).
    rope = cfg.get("rope_parameters")
    if isinstance(rope, dict) and "rope_theta" in rope:
        cfg.setdefault("rope_theta", rope["rope_theta"])
    cfg["torch_dtype"] = cfg["dtype"] = "float32"
    cfg_path.write_text(json.dumps(cfg, indent=2) + "\n")
    gen = getattr(model, "generation_config", None)
    if gen is not None:
        gen.save_pretrained(out_dir)
    else:
        (out_dir / "generation_config.json").write_text(json.dumps({"bos_token_id": cfg.get("bos_token_id"), "eos_token_id": cfg.get("eos_token_id")}) + "\n")
    save_tokenizer(tokenizer, out_dir, model.config)


def save_tokenizer(tokenizer: Any, out_dir: Path, model_config: Any = None, *, require_chat_template: bool = True) -> None:
    """Tokenizer files as transformers.js and @huggingface/tokenizers read them.

    transformers 5 writes the chat template to `chat_template.jinja` and no special
    tokens map; JS readers want the template inside `tokenizer_config.json`. A generator
    needs the template; a PRM reads raw text and may have none.
    """
    out_dir = Path(out_dir)
    tokenizer.save_pretrained(out_dir)
    tc_path = out_dir / "tokenizer_config.json"
    tc = json.loads(tc_path.read_text()) if tc_path.exists() else {}
    template = getattr(tokenizer, "chat_template", None)
    if not template and (out_dir / "chat_template.jinja").exists():
        template = (out_dir / "chat_template.jinja").read_text()
    if template:
        tc["chat_template"] = template
    elif require_chat_template:
        raise ExportError("the tokenizer has no chat template; set tokenizer.chat_template before exporting")
    # 'TokenizersBackend' is a transformers-5 name JS libraries do not know.
    if tc.get("tokenizer_class") in (None, "TokenizersBackend", "PreTrainedTokenizerFast"):
        tc["tokenizer_class"] = "GPT2Tokenizer"
    tc.pop("is_local", None)
    max_len = getattr(model_config, "max_position_embeddings", None) if model_config is not None else None
    if max_len:
        tc["model_max_length"] = int(max_len)
    tc.pop("local_files_only", None)
    tc_path.write_text(json.dumps(tc, indent=2, ensure_ascii=False) + "\n")
    special = {}
    for key in ("bos_token", "eos_token", "unk_token", "pad_token"):
        value = getattr(tokenizer, key, None)
        if value:
            special[key] = str(value)
    extra = getattr(tokenizer, "additional_special_tokens", None) or []
    if extra:
        special["additional_special_tokens"] = [str(t) for t in extra]
    (out_dir / "special_tokens_map.json").write_text(json.dumps(special, indent=2, ensure_ascii=False) + "\n")


def export_causal_lm(
    model: torch.nn.Module,
    tokenizer: Any,
    out_dir: str | os.PathLike,
    quantize: Sequence[str] = ("q8", "q4"),
    *,
    prompts: Sequence[str] = DEFAULT_PROMPTS,
    atol: float = DEFAULT_ATOL,
    source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Export, quantize and verify; returns the report written to `stepwise_export.json`.

    `quantize` picks among "q8" and "q4". `source` is stored verbatim in the report
    (e.g. the source file hash, used by callers to skip rebuilding). Raises
    `ExportError` when the fp32 graph's logits differ from PyTorch's by more than `atol`.
    """
    unknown = set(quantize) - {"q8", "q4"}
    if unknown:
        raise ValueError(f"unknown quantization {sorted(unknown)}; choose from 'q8' and 'q4'")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report_path = out / REPORT_FILE
    if report_path.exists():
        report_path.unlink()  # a half-rewritten folder must not look verified
    started = time.time()
    original_attn = getattr(model.config, "_attn_implementation", None)
    was_training = model.training
    prepared = _prepare_model(model)
    try:
        return _export_prepared(prepared, tokenizer, out, quantize, prompts, atol, source, started)
    finally:
        model.train(was_training)
        if prepared is model and original_attn and original_attn != "eager":
            # The caller's model was used in place: give it back its attention kernel.
            if hasattr(model, "set_attn_implementation"):
                model.set_attn_implementation(original_attn)
            else:
                model.config._attn_implementation = original_attn


def _export_prepared(model, tokenizer, out: Path, quantize, prompts, atol, source, started) -> dict[str, Any]:
    onnx_dir = out / "onnx"
    fp32 = onnx_dir / ONNX_FILES["fp32"]
    _log(f"exporting fp32 graph to {fp32}")
    _export_fp32(model, fp32)
    _write_metadata(model, tokenizer, out)
    for kind in quantize:
        _log(f"quantizing {kind}")
        (_quantize_q8 if kind == "q8" else _quantize_q4)(fp32, onnx_dir / ONNX_FILES[kind])
    _log("verifying logits against PyTorch")
    verification = verify_onnx(out, model, prompts, atol=atol, tokenizer=tokenizer, quantized=quantize)
    layers, kv_heads, head_dim = _kv_shape(model.config)
    inputs, outputs = io_names(layers)
    report = {
        "format": "stepwise-onnx-export/1",
        "verified": True,
        "source": source or {},
        "model_type": model.config.model_type,
        "num_layers": layers,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": int(model.config.vocab_size),
        "opset": OPSET,
        "inputs": inputs,
        "outputs": outputs,
        "verification": verification,
    }
    write_report(out, report, quantize, started)
    _log(f"done in {report['export_seconds']} s; fp32 max |logit diff| {verification['fp32_max_abs_diff']:.2e}")
    return report


def write_report(out: Path, report: dict[str, Any], quantize: Sequence[str], started: float) -> None:
    """Completes ``report`` with the files, versions and time, then writes stepwise_export.json.
    Written last and atomically: its presence means the folder is complete and verified."""
    report["files"] = {k: f"onnx/{ONNX_FILES[k]}" for k in ("fp32", *quantize)}
    report["file_sizes"] = {k: (out / "onnx" / ONNX_FILES[k]).stat().st_size for k in ("fp32", *quantize)}
    report["versions"] = _versions()
    report["export_seconds"] = round(time.time() - started, 2)
    tmp = (out / REPORT_FILE).with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(out / REPORT_FILE)


def _versions() -> dict[str, str]:
    import onnx
    import onnxruntime
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
    }


# --------------------------------------------------------------------------- verification


class OnnxCausalLM:
    """A minimal onnxruntime runner for an exported folder (used by checks and tests)."""

    def __init__(self, path: str | os.PathLike, num_layers: int, kv_heads: int, head_dim: int):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.num_layers, self.kv_heads, self.head_dim = num_layers, kv_heads, head_dim

    def empty_past(self, batch: int) -> list[np.ndarray]:
        shape = (batch, self.kv_heads, 0, self.head_dim)
        return [np.zeros(shape, dtype=np.float32) for _ in range(2 * self.num_layers)]

    def __call__(self, input_ids, attention_mask, position_ids, past=None):
        input_ids = np.asarray(input_ids, dtype=np.int64)
        past = self.empty_past(input_ids.shape[0]) if past is None else past
        feeds = {
            "input_ids": input_ids,
            "attention_mask": np.asarray(attention_mask, dtype=np.int64),
            "position_ids": np.asarray(position_ids, dtype=np.int64),
        }
        for i in range(self.num_layers):
            feeds[f"past_key_values.{i}.key"] = past[2 * i]
            feeds[f"past_key_values.{i}.value"] = past[2 * i + 1]
        result = self.session.run(None, feeds)
        return result[0], result[1:]


def _torch_logits(model, ids: list[int]) -> np.ndarray:
    with torch.no_grad():
        t = torch.tensor([ids], dtype=torch.int64)
        out = model(input_ids=t, attention_mask=torch.ones_like(t), use_cache=False)
    return out.logits[0].float().numpy()


def _encode(tokenizer, prompts: Iterable[str], vocab: int) -> list[list[int]]:
    encoded = []
    for i, prompt in enumerate(prompts):
        if tokenizer is not None:
            ids = list(tokenizer(prompt, add_special_tokens=False)["input_ids"])
        else:  # no tokenizer: deterministic ids, enough to compare numbers
            rng = np.random.default_rng(i)
            ids = rng.integers(0, vocab, size=6 + 3 * i).tolist()
        if len(ids) < 2:  # the cached check splits each prompt in two
            raise ValueError(f"verification prompt {prompt!r} has fewer than 2 tokens; use a longer one")
        encoded.append(ids)
    return encoded


def left_pad(rows: list[list[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Left-padded ids, attention mask and position ids (0 at pads) for a batch."""
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for b, row in enumerate(rows):
        ids[b, width - len(row) :] = row
        mask[b, width - len(row) :] = 1
    pos = np.clip(mask.cumsum(-1) - 1, 0, None)
    return ids, mask, pos


def verify_onnx(
    out_dir: str | os.PathLike,
    model: torch.nn.Module,
    prompts: Sequence[str] = DEFAULT_PROMPTS,
    atol: float = DEFAULT_ATOL,
    *,
    tokenizer: Any = None,
    quantized: Sequence[str] = (),
) -> dict[str, Any]:
    """Compare the fp32 graph's logits with PyTorch's; raise `ExportError` beyond `atol`.

    Three checks per prompt set: (1) each prompt in one pass with an empty past;
    (2) the prompt split in two, the second part fed with the first part's cache;
    (3) all prompts as one left-padded batch, compared on the real (non-pad) tokens.
    Quantized graphs are compared with fp32 (top-1 agreement, max diff): reported only.
    """
    out = Path(out_dir)
    fp32_path = out / "onnx" / ONNX_FILES["fp32"]
    if not fp32_path.is_file():
        raise ExportFolderError(f"{fp32_path} is missing; export the model first")
    if hasattr(model, "merge_and_unload"):
        model = _prepare_model(model)  # a merged copy; the caller's model is untouched
    was_training = model.training
    model.eval()
    try:
        return _verify(out, model, prompts, atol, tokenizer, quantized)
    finally:
        model.train(was_training)


def _verify(out: Path, model, prompts, atol: float, tokenizer, quantized) -> dict[str, Any]:
    layers, kv_heads, head_dim = _kv_shape(model.config)
    fp32_path = out / "onnx" / ONNX_FILES["fp32"]
    runner = OnnxCausalLM(fp32_path, layers, kv_heads, head_dim)
    rows = _encode(tokenizer, prompts, int(model.config.vocab_size))
    refs = [_torch_logits(model, r) for r in rows]
    diffs = {"full": 0.0, "with_past": 0.0, "left_padded_batch": 0.0}  # max |diff| per check
    top1_mismatch = 0
    total = 0
    for ids, ref in zip(rows, refs, strict=True):
        n = len(ids)
        logits, _ = runner([ids], [[1] * n], [list(range(n))])
        diffs["full"] = max(diffs["full"], float(np.abs(logits[0] - ref).max()))
        top1_mismatch += int((logits[0].argmax(-1) != ref.argmax(-1)).sum())
        total += n
        cut = n // 2
        _, past = runner([ids[:cut]], [[1] * cut], [list(range(cut))])
        step, _ = runner([ids[cut:]], [[1] * n], [list(range(cut, n))], past)
        diffs["with_past"] = max(diffs["with_past"], float(np.abs(step[0] - ref[cut:]).max()))
    pad_id = getattr(tokenizer, "pad_token_id", None) or 0
    ids, mask, pos = left_pad(rows, pad_id)
    batch_logits, batch_past = runner(ids, mask, pos)
    width = ids.shape[1]
    for b, ref in enumerate(refs):
        got = batch_logits[b, width - len(ref) :]
        diffs["left_padded_batch"] = max(diffs["left_padded_batch"], float(np.abs(got - ref).max()))
    # One decode step on the padded batch's cache, as a generation loop does it.
    next_ids = [int(ref[-1].argmax()) for ref in refs]
    step_mask = np.concatenate([mask, np.ones((len(rows), 1), dtype=np.int64)], axis=1)
    step_pos = pos[:, -1:] + 1
    step_logits, _ = runner(np.array(next_ids)[:, None], step_mask, step_pos, batch_past)
    diffs["left_padded_decode_step"] = 0.0
    for b, row in enumerate(rows):
        ref_step = _torch_logits(model, row + [next_ids[b]])[-1]
        diffs["left_padded_decode_step"] = max(diffs["left_padded_decode_step"], float(np.abs(step_logits[b, -1] - ref_step).max()))
    worst = max(diffs.values())
    result: dict[str, Any] = {
        "atol": atol,
        "fp32_max_abs_diff": worst,
        "fp32_max_abs_diff_by_check": diffs,
        "fp32_top1_agreement_with_torch": 1.0 - top1_mismatch / total,
        "reference_logit_abs_max": float(max(np.abs(r).max() for r in refs)),
        "prompts": len(rows),
        "tokens": total,
        "quantized": {},
    }
    if not worst <= atol:  # also catches NaN
        raise ExportError(
            f"ONNX fp32 logits differ from PyTorch by {worst:.3g} (> atol {atol:g}); per check: " + ", ".join(f"{k} {v:.3g}" for k, v in diffs.items())
        )
    for kind in quantized:
        q = OnnxCausalLM(out / "onnx" / ONNX_FILES[kind], layers, kv_heads, head_dim)
        agree = count = 0
        qdiff = 0.0
        for ids_row in rows:
            n = len(ids_row)
            a, _ = runner([ids_row], [[1] * n], [list(range(n))])
            b, _ = q([ids_row], [[1] * n], [list(range(n))])
            agree += int((a[0].argmax(-1) == b[0].argmax(-1)).sum())
            count += n
            qdiff = max(qdiff, float(np.abs(a - b).max()))
        result["quantized"][kind] = {"top1_agreement_with_fp32": agree / count, "max_abs_diff_vs_fp32": qdiff}
    return result
