"""What every Trainer-based job shares: arguments, resume, and the final save."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..checkpoints import checkpoints_dir, latest_checkpoint
from ..config import CommonConfig
from ..protocol import is_secondary_process


def trainer_arguments(cfg: CommonConfig, device: str, **extra: Any) -> dict[str, Any]:
    """Keyword arguments shared by TrainingArguments and TRL's configs."""
    return dict(
        output_dir=str(checkpoints_dir(cfg.output_dir)),
        max_steps=cfg.max_steps,
        learning_rate=cfg.learning_rate,
        per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.gradient_accumulation_steps,
        save_steps=cfg.save_steps,
        save_strategy="steps",
        logging_steps=1,
        seed=cfg.seed,
        report_to=[],
        disable_tqdm=True,
        use_cpu=device == "cpu",
        bf16=device == "cuda",
        dataloader_num_workers=0,
        **extra,
    )


def resume_path(cfg: CommonConfig) -> str | None:
    if not cfg.resume:
        return None
    latest = latest_checkpoint(cfg.output_dir)
    if latest is None:
        raise FileNotFoundError(f"--resume was given but {checkpoints_dir(cfg.output_dir)} has no complete checkpoint (no 'latest' pointer).")
    return str(latest)


def read_jsonl(path: str) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path} line {i} is not JSON: {e.msg}") from None
    if not rows:
        raise ValueError(f"{path} holds no examples.")
    return rows


def save_final(model: Any, tokenizer: Any, cfg: CommonConfig) -> Path:
    """Merges LoRA (if any) and saves a plain Hugging Face folder at OUT/final."""
    final = Path(cfg.output_dir) / "final"
    if is_secondary_process():
        return final  # rank 0 writes the one copy
    if hasattr(model, "merge_and_unload"):
        model = model.merge_and_unload()
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    return final
