"""``export``: merge LoRA, write an ONNX folder and verify its logits against PyTorch before
declaring success. A generator becomes an onnx-community-style folder with a KV cache (fp32, q8,
q4; stepwise_trainer.onnx_export); a process reward model (a token classifier from the ``prm``
job) becomes a single-pass graph the extension's step scorer reads (fp32, q8;
stepwise_trainer.onnx_prm_export)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..config import ConfigError
from ..events import EventWriter

JOB = "export"


@dataclass
class ExportConfig:
    """Export a trained model to ONNX for the extension."""

    JOB = JOB
    model: str = field(default="", metadata={"help": "Hugging Face-format folder to export (e.g. a job's OUT/final)."})
    output_dir: str = field(default="", metadata={"help": "Folder the ONNX model is written to."})
    quantize: str = field(default="q8,q4", metadata={"help": "Quantized variants besides fp32: any of q8, q4, comma-separated, or 'none'."})
    atol: float = field(default=2e-3, metadata={"help": "Largest allowed |logit difference| between ONNX fp32 and PyTorch."})

    def __post_init__(self) -> None:
        if not self.model or not os.path.exists(os.path.join(self.model, "config.json")):
            raise ConfigError(f"--model must be a Hugging Face-format folder with config.json (got {self.model!r}).")
        if not self.output_dir:
            raise ConfigError("--output-dir is required.")
        bad = {q for q in self.quantize.split(",") if q and q not in ("q8", "q4", "none")}
        if bad:
            raise ConfigError(f"unknown quantization {sorted(bad)}; choose from q8, q4 or none.")


def is_token_classifier(model_dir: str) -> bool:
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        architectures = json.load(f).get("architectures") or []
    return any(a.endswith("ForTokenClassification") for a in architectures)


def run(cfg: ExportConfig, events: EventWriter) -> dict[str, float]:
    if is_token_classifier(cfg.model):
        return run_prm(cfg, events)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ..onnx_export import export_causal_lm

    events.progress(0, 3, "loading the model")
    model = AutoModelForCausalLM.from_pretrained(cfg.model, dtype=torch.float32)
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    tokenizer = AutoTokenizer.from_pretrained(cfg.model)
    events.progress(1, 3, "exporting and verifying")
    quantize = tuple(q for q in cfg.quantize.split(",") if q in ("q8", "q4"))
    report = export_causal_lm(
        model, tokenizer, cfg.output_dir, quantize=quantize, atol=cfg.atol, source={"kind": "trainer-export", "model": os.path.abspath(cfg.model)}
    )
    max_diff = float(report["verification"]["fp32_max_abs_diff"])
    events.progress(3, 3, "verified")
    metrics = {"max_abs_logit_diff": max_diff, "atol": cfg.atol}
    events.done(cfg.output_dir, metrics, onnx=cfg.output_dir)
    return metrics


def run_prm(cfg: ExportConfig, events: EventWriter) -> dict[str, float]:
    import torch
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from ..onnx_prm_export import export_prm, read_prm_meta

    events.progress(0, 3, "loading the process reward model")
    model = AutoModelForTokenClassification.from_pretrained(cfg.model, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(cfg.model)
    meta = read_prm_meta(cfg.model)
    events.progress(1, 3, "exporting and verifying")
    # 4-bit weights move a PRM's two logits too far; q8 is the only quantized variant offered.
    quantize = ("q8",) if "q8" in cfg.quantize.split(",") else ()
    source = {"kind": "trainer-export", "model": os.path.abspath(cfg.model)}
    report = export_prm(model, tokenizer, cfg.output_dir, step_separator=meta["step_separator"], quantize=quantize, atol=cfg.atol, source=source)
    verification = report["verification"]
    events.progress(3, 3, "verified")
    metrics = {
        "max_abs_logit_diff": float(verification["fp32_max_abs_diff"]),
        "max_step_probability_diff": float(verification["fp32_max_step_probability_diff"]),
        "atol": cfg.atol,
    }
    events.done(cfg.output_dir, metrics, onnx=cfg.output_dir)
    return metrics
