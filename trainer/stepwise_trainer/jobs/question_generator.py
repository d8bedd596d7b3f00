"""``question-generator``: train the practice loop's question generator on its reward R_G (seed 001).

A practice set exports ``generator-rewards.jsonl``: every proposed question as ``{"prompt",
"completion", "reward", "kept"}``, ``reward`` being R_G, how reliably the question could be judged.
The design optimises the generator for R_G. The rewards here were measured offline (a question's
R_G needs the solver and the judge), so this job does the offline form of GRPO's update: each
question's advantage is its R_G minus the mean R_G of the questions proposed from the same prompt
(or of the whole file, for a prompt with a single question), and the questions with a positive
advantage are fine-tuned on, loss on the question only. Deviation, stated: GRPO would also push
down the negative-advantage questions; a filtered fine-tune only raises the positive ones.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..config import CommonConfig, ConfigError
from ..events import EventWriter
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from .common import finish, lora_for, progress_callbacks, read_jsonl, run_training, trainer_arguments

JOB = "question-generator"


@dataclass
class QuestionGeneratorConfig(CommonConfig):
    """Fine-tune the question generator on the questions whose R_G beats their prompt's mean."""

    JOB = JOB
    min_advantage: float = field(default=0.0, metadata={"help": "Train on questions whose R_G exceeds their prompt's mean R_G by more than this."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("question-generator needs --data: the generator-rewards.jsonl a practice set exports.")


def advantages(rows: list[dict[str, Any]]) -> list[float]:
    """R_G minus the mean R_G of the same prompt's questions (the file's mean for a prompt asked once).

    >>> advantages([{"prompt": "a", "reward": 0.9}, {"prompt": "a", "reward": 0.5}, {"prompt": "b", "reward": 0.4}])
    [0.2, -0.2, -0.2]
    """
    by_prompt: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_prompt[r["prompt"]].append(float(r["reward"]))
    overall = sum(float(r["reward"]) for r in rows) / len(rows)
    out = []
    for r in rows:
        group = by_prompt[r["prompt"]]
        baseline = sum(group) / len(group) if len(group) > 1 else overall
        out.append(round(float(r["reward"]) - baseline, 10))
    return out


def run(cfg: QuestionGeneratorConfig, events: EventWriter) -> dict[str, float]:
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    device, _ = pick_device(cfg.device)
    rows = read_jsonl(cfg.data)
    bad = [i for i, r in enumerate(rows, 1) if not r.get("prompt") or not r.get("completion") or not isinstance(r.get("reward"), (int, float))]
    if bad:
        raise ValueError(f"{cfg.data}: rows {bad[:5]} need 'prompt', 'completion' and a numeric 'reward' (R_G).")
    chosen = [r for r, a in zip(rows, advantages(rows), strict=True) if a > cfg.min_advantage]
    if not chosen:
        raise ValueError(f"No question's R_G exceeds its prompt's mean by more than {cfg.min_advantage}: every reward is alike, nothing to learn from.")
    events.progress(0, cfg.max_steps, f"{len(chosen)} of {len(rows)} questions beat their prompt's mean R_G")
    tokenizer = load_tokenizer(cfg.base_model)
    model = load_causal_lm(cfg.base_model, TRAINED_DTYPE).to(device)
    dataset = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": r["prompt"]}], "completion": [{"role": "assistant", "content": r["completion"]}]} for r in chosen]
    )
    trainer = SFTTrainer(
        model=model,
        args=SFTConfig(**trainer_arguments(cfg, device), max_length=cfg.max_length, completion_only_loss=True),
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, cfg, JOB),
    )
    loss = run_training(trainer, cfg)
    mean_chosen = sum(float(r["reward"]) for r in chosen) / len(chosen)
    metrics = {"train_loss": loss, "questions": float(len(rows)), "trained_on": float(len(chosen)), "trained_mean_r_g": mean_chosen}
    return finish(trainer, tokenizer, cfg, events, metrics)
