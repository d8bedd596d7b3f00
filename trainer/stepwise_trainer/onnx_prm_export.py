"""Export a process reward model (a token classifier) to ONNX and check it against PyTorch.

The extension's PRM step scorer reads the folder this writes:

- ``onnx/model.onnx`` (fp32) and, when asked, ``onnx/model_quantized.onnx`` (8-bit weights):
  inputs ``input_ids`` and ``attention_mask`` (int64, [batch, seq]), output ``logits``
  ([batch, seq, num_labels]); no KV cache, since a PRM reads a whole solution in one pass.
- ``config.json`` and the tokenizer files.
- ``stepwise_export.json``, written last: ``task`` is ``token-classification-prm``, with the
  ``step_separator`` the model was trained with and the ``correct_label`` index whose
  probability is a step's score. The scorer must tokenise exactly as training did (see
  ``prm_input``), so these travel with the weights.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .export_folder import ONNX_FILES, REPORT_FILE, ExportError
from .onnx_export import OPSET, _load_onnx, _log, _prepare_model, _quantize_q8, _save_onnx, save_tokenizer, write_report

PRM_TASK = "token-classification-prm"
PRM_META_FILE = "stepwise_prm.json"
CORRECT_LABEL = 1  # the prm job labels a correct step 1 and a wrong one 0

# Solutions the verification runs through both runtimes: short and long, one step and several.
VERIFY_EXAMPLES = (
    ("What is 2 + 3?", ["2 + 3 = 5.", "So the answer is $\\boxed{5}$."]),
    ("Show that the sum of two even numbers is even.", ["Let a = 2m and b = 2n.", "Then a + b = 2(m + n).", "Hence a + b is even."]),
    ("Solve x^2 = 4 for x > 0.", ["x = 2 since 2^2 = 4 and x is positive."]),
)


def write_prm_meta(folder: str | os.PathLike, step_separator: str) -> None:
    """Records how the PRM was trained beside its weights, for the export to carry on."""
    meta = {"task": PRM_TASK, "step_separator": step_separator, "correct_label": CORRECT_LABEL}
    (Path(folder) / PRM_META_FILE).write_text(json.dumps(meta, indent=2) + "\n")


def read_prm_meta(folder: str | os.PathLike) -> dict[str, Any]:
    path = Path(folder) / PRM_META_FILE
    meta = {"task": PRM_TASK, "step_separator": "\n", "correct_label": CORRECT_LABEL}
    if path.exists():
        meta.update(json.loads(path.read_text()))
    return meta


def prm_input(tokenizer: Any, problem: str, steps: Sequence[str], separator: str) -> tuple[list[int], list[int]]:
    """Token ids of a solution as the prm job builds them, and the index of each step's last token.

    The problem and each step are tokenised separately (special tokens only on the problem), so a
    step's tokens never merge with its neighbour's; the TypeScript scorer does the same.
    """
    ids = list(tokenizer(problem + separator, add_special_tokens=True)["input_ids"])
    ends: list[int] = []
    for step in steps:
        ids += tokenizer(step + separator, add_special_tokens=False)["input_ids"]
        ends.append(len(ids) - 1)
    return ids, ends


class _LogitsOnly(torch.nn.Module):
    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=True).logits


def _export_fp32(model: torch.nn.Module, path: Path) -> None:
    vocab = int(model.config.vocab_size)
    ids = torch.randint(0, vocab, (2, 7), dtype=torch.int64)
    mask = torch.ones_like(ids)
    mask[1, :3] = 0  # a padded row, so the mask is not traced as a constant
    axes = {"batch_size": 0, "sequence_length": 1}
    dynamic = {name: {i: n for n, i in axes.items()} for name in ("input_ids", "attention_mask", "logits")}
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        raw = Path(tmp) / "model.onnx"
        torch.onnx.export(
            _LogitsOnly(model).eval(),
            (ids, mask),
            str(raw),
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
        _save_onnx(_load_onnx(raw), path)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def verify_prm(out: Path, model: torch.nn.Module, tokenizer: Any, separator: str, atol: float, quantized: Sequence[str]) -> dict[str, Any]:
    """Largest |logit| and |step probability| differences between ONNX fp32 and PyTorch."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(out / "onnx" / ONNX_FILES["fp32"]), options, providers=["CPUExecutionProvider"])
    # Each example is tokenised and run through the fp32 graph once; its step probabilities are
    # compared with PyTorch's here and with each quantized graph's below.
    cases = []
    logit_diff = prob_diff = 0.0
    for problem, solution in VERIFY_EXAMPLES:
        ids, ends = prm_input(tokenizer, problem, solution, separator)
        feeds = {"input_ids": np.array([ids], dtype=np.int64), "attention_mask": np.ones((1, len(ids)), dtype=np.int64)}
        got = session.run(None, feeds)[0][0]
        with torch.no_grad():
            t = torch.tensor([ids])
            ref = model(input_ids=t, attention_mask=torch.ones_like(t)).logits[0].float().numpy()
        fp32_probs = _softmax(got[ends])[:, CORRECT_LABEL]
        logit_diff = max(logit_diff, float(np.abs(got - ref).max()))
        prob_diff = max(prob_diff, float(np.abs(fp32_probs - _softmax(ref[ends])[:, CORRECT_LABEL]).max()))
        cases.append((feeds, ends, fp32_probs))
    if not logit_diff <= atol:  # also catches NaN
        raise ExportError(f"ONNX fp32 PRM logits differ from PyTorch by {logit_diff:.3g} (> atol {atol:g})")
    steps = sum(len(ends) for _, ends, _ in cases)
    result: dict[str, Any] = {"atol": atol, "fp32_max_abs_diff": logit_diff, "fp32_max_step_probability_diff": prob_diff, "steps": steps, "quantized": {}}
    for kind in quantized:
        q = ort.InferenceSession(str(out / "onnx" / ONNX_FILES[kind]), options, providers=["CPUExecutionProvider"])
        worst = max(float(np.abs(_softmax(q.run(None, feeds)[0][0][ends])[:, CORRECT_LABEL] - fp32).max()) for feeds, ends, fp32 in cases)
        result["quantized"][kind] = {"max_step_probability_diff_vs_fp32": worst}
    return result


def export_prm(
    model: torch.nn.Module,
    tokenizer: Any,
    out_dir: str | os.PathLike,
    *,
    step_separator: str = "\n",
    quantize: Sequence[str] = ("q8",),
    atol: float = 1e-3,
    source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Export, quantize (q8 only: a PRM's two logits are sensitive to 4-bit weights) and verify.

    Returns the report written to ``stepwise_export.json``; raises ``ExportError`` when the fp32
    graph disagrees with PyTorch by more than ``atol``.
    """
    unknown = set(quantize) - {"q8"}
    if unknown:
        raise ValueError(f"a PRM exports fp32 and optionally q8; {sorted(unknown)} is not supported")
    started = time.time()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report_path = out / REPORT_FILE
    if report_path.exists():
        report_path.unlink()  # a half-rewritten folder must not look verified
    prepared = _prepare_model(model)
    fp32 = out / "onnx" / ONNX_FILES["fp32"]
    _log(f"exporting the PRM's fp32 graph to {fp32}")
    _export_fp32(prepared, fp32)
    for kind in quantize:
        _log(f"quantizing {kind}")
        _quantize_q8(fp32, out / "onnx" / ONNX_FILES[kind])
    prepared.config.save_pretrained(out)
    save_tokenizer(tokenizer, out, prepared.config, require_chat_template=False)
    verification = verify_prm(out, prepared, tokenizer, step_separator, atol, quantize)
    report = {
        "format": "stepwise-onnx-export/1",
        "task": PRM_TASK,
        "verified": True,
        "source": source or {},
        "model_type": prepared.config.model_type,
        "num_labels": int(prepared.config.num_labels),
        "correct_label": CORRECT_LABEL,
        "step_separator": step_separator,
        "opset": OPSET,
        "inputs": ["input_ids", "attention_mask"],
        "outputs": ["logits"],
        "verification": verification,
    }
    write_report(out, report, quantize, started)
    _log(f"PRM exported in {report['export_seconds']} s; max |step probability diff| {verification['fp32_max_step_probability_diff']:.2e}")
    return report
