"""``dpo``: preference optimisation on judged pairs from reliable questions (seed 001).

Rows ``{"prompt", "chosen", "rejected", "r_cons", "r_sep", "r_stab", "r_g"}`` come from practice
sets. Only questions that pass every reliability threshold are trained on; the rest are
counted and reported, not silently used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..algorithms import passes_reliability
from ..config import CommonConfig, ConfigError
from ..design import RELIABILITY_THRESHOLDS
from ..events import EventWriter
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from .common import finish, lora_for, progress_callbacks, read_jsonl, run_training, trainer_arguments

JOB = "dpo"


@dataclass
class DpoConfig(CommonConfig):
    """Preference optimisation on judged pairs of reliable questions."""

    JOB = JOB
    min_r_cons: float = field(default=RELIABILITY_THRESHOLDS["cons"], metadata={"help": "Least score consistency R_cons a question needs."})
    min_r_sep: float = field(default=RELIABILITY_THRESHOLDS["sep"], metadata={"help": "Least strong/weak separation R_sep a question needs."})
    min_r_stab: float = field(default=RELIABILITY_THRESHOLDS["stab"], metadata={"help": "Least preference stability R_stab a question needs."})
    beta: float = field(default=0.1, metadata={"help": "DPO's β: how far the policy may move from the reference."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("dpo needs --data: the dpo-pairs.jsonl a practice set exports.")
        if self.beta <= 0:
            raise ConfigError("beta must be positive.")


def reliable_pairs(rows: list[dict], thresholds: tuple[float, float, float]) -> tuple[list[dict], int]:
    kept = [r for r in rows if passes_reliability(float(r.get("r_cons", 0)), r.get("r_sep"), float(r.get("r_stab", 0)), thresholds)]
    return kept, len(rows) - len(kept)


def run(cfg: DpoConfig, events: EventWriter) -> dict[str, float]:
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    device, _ = pick_device(cfg.device)
    rows = read_jsonl(cfg.data)
    pairs, dropped = reliable_pairs(rows, (cfg.min_r_cons, cfg.min_r_sep, cfg.min_r_stab))
    if not pairs:
        raise ValueError(
            f"None of the {len(rows)} pairs comes from a question passing the reliability thresholds (R_cons ≥ {cfg.min_r_cons}, R_sep ≥ {cfg.min_r_sep}, R_stab ≥ {cfg.min_r_stab})."
        )
    events.progress(0, cfg.max_steps, f"{len(pairs)} reliable pairs, {dropped} from unreliable questions left out")
    tokenizer = load_tokenizer(cfg.base_model)
    model = load_causal_lm(cfg.base_model, TRAINED_DTYPE).to(device)
    dataset = Dataset.from_list([{"prompt": p["prompt"], "chosen": p["chosen"], "rejected": p["rejected"]} for p in pairs])
    args = DPOConfig(**trainer_arguments(cfg, device), beta=cfg.beta, max_length=cfg.max_length)
    trainer = DPOTrainer(
        model=model,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, cfg, JOB),
    )
    loss = run_training(trainer, cfg)
    return finish(trainer, tokenizer, cfg, events, {"train_loss": loss, "pairs": float(len(pairs)), "dropped_unreliable": float(dropped)})
