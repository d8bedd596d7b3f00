"""What every Trainer-based job shares: arguments, LoRA, resume, and the one tail (train, save, report)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..callbacks import ProtocolCallback
from ..checkpoints import checkpoints_dir, latest_checkpoint
from ..config import CommonConfig, ConfigError
from ..events import EventWriter, is_secondary_process
from ..models import lora_config, mixed_precision


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
        **mixed_precision(device),
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


def merge_lora_for_generation(model: Any) -> None:
    """Folds trained LoRA weights into the base weights before the after-training measurement.
    Unmerged, every adapted layer adds its own small products to each decoded token; on an H100
    GRPO's held-out problems took 55 s each after training against 22 s before. save_final's merge
    skips adapters already merged."""
    if hasattr(model, "merge_adapter"):
        model.merge_adapter()


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


def lora_for(cfg: CommonConfig, task_type: str = "CAUSAL_LM") -> Any:
    """The LoRA adapter config a job asked for with --lora-r, or None for full fine-tuning."""
    return lora_config(cfg.lora_r, cfg.lora_alpha, task_type) if cfg.lora_r else None


def progress_callbacks(events: EventWriter, cfg: CommonConfig, job: str) -> list[Any]:
    """Step, loss and checkpoint events on stdout for the extension's progress and resume."""
    return [ProtocolCallback(events, cfg.output_dir, job)]


def run_training(trainer: Any, cfg: CommonConfig) -> float:
    """Runs the training loop, from the latest checkpoint when --resume was given; returns the mean training loss."""
    return float(trainer.train(resume_from_checkpoint=resume_path(cfg)).training_loss)


def finish(
    trainer: Any,
    tokenizer: Any,
    cfg: CommonConfig,
    events: EventWriter,
    metrics: dict[str, float],
    beside_model: Callable[[Path], None] | None = None,
) -> dict[str, float]:
    """The tail every job ends with: save OUT/final (LoRA merged), write what must travel with the
    model (``beside_model``, rank 0 only), and report the final metrics in the ``done`` event."""
    final = save_final(trainer.model, tokenizer, cfg)
    if beside_model is not None and not is_secondary_process():
        beside_model(final)
    events.done(str(final), metrics)
    return metrics


def group_accumulation_steps(num_generations: int, problems_per_step: int, batch_size: int, asked: int) -> int:
    """Gradient accumulation steps of a GRPO job: K × problems_per_step completions make one update,
    --batch-size per process at a time. ``asked`` is the --gradient-accumulation-steps given (1 when not)."""
    completions = num_generations * problems_per_step
    per_pass = batch_size * int(os.environ.get("WORLD_SIZE", "1"))
    if completions % per_pass:
        raise ConfigError(
            f"{problems_per_step} problems × {num_generations} completions ({completions}) per step must be divisible by "
            f"batch_size × processes ({per_pass}). Try --batch-size {num_generations}."
        )
    derived = completions // per_pass
    if asked not in (1, derived):
        raise ConfigError(
            f"The gradient accumulation steps ({derived}) follow from --problems-per-step; drop --gradient-accumulation-steps ({asked}) "
            "and set --problems-per-step instead."
        )
    return derived
