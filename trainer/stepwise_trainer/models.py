"""Loading base models and tokenizers; choosing device and precision; LoRA."""

from __future__ import annotations

import os
from typing import Any

import torch


def pick_device(choice: str) -> tuple[str, torch.dtype]:
    """CUDA with bf16 when available (or asked for), else CPU with fp32."""
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device=cuda was asked for, but no CUDA device is available. Use device=auto or cpu.")
    if choice in ("auto", "cuda") and torch.cuda.is_available():
        return "cuda", torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return "cpu", torch.float32


def load_tokenizer(base_model: str) -> Any:
    from transformers import AutoTokenizer

    if base_model == "smollm2":
        from .tiny_model import load_smollm2_tokenizer

        tok = load_smollm2_tokenizer()
    else:
        _check_folder(base_model)
        tok = AutoTokenizer.from_pretrained(base_model)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def _check_folder(path: str) -> None:
    if not os.path.isdir(path) or not os.path.exists(os.path.join(path, "config.json")):
        raise FileNotFoundError(
            f"{path} is not a Hugging Face model folder (config.json missing). Pass a folder saved with save_pretrained, or 'smollm2' for the default model."
        )


def load_causal_lm(base_model: str, dtype: torch.dtype) -> Any:
    from transformers import AutoModelForCausalLM

    if base_model == "smollm2":
        from .smollm2_source import find_smollm2_gguf

        gguf = find_smollm2_gguf()
        return _plain(AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=dtype))
    _check_folder(base_model)
    return AutoModelForCausalLM.from_pretrained(base_model, dtype=dtype)


def load_token_classifier(base_model: str, dtype: torch.dtype) -> Any:
    """A causal LM body with a 2-way token-classification head (the PRM)."""
    from transformers import AutoModelForTokenClassification

    if base_model == "smollm2":
        from .smollm2_source import find_smollm2_gguf

        gguf = find_smollm2_gguf()
        return _plain(AutoModelForTokenClassification.from_pretrained(str(gguf.parent), gguf_file=gguf.name, num_labels=2, dtype=dtype))
    _check_folder(base_model)
    return AutoModelForTokenClassification.from_pretrained(base_model, num_labels=2, dtype=dtype)


def _plain(model: Any) -> Any:
    """A model loaded from GGUF is dequantized already; drop the marker that makes the Trainer refuse it."""
    from .default_model import _forget_gguf_origin

    _forget_gguf_origin(model)
    return model


def lora_config(r: int, alpha: int, task_type: str) -> Any:
    from peft import LoraConfig

    return LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.0, target_modules="all-linear", task_type=task_type)
