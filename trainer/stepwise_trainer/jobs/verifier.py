"""``verifier``: train the proof verifier that ``grpo --verifier`` loads (seed 000's first stage).

The verifier answers the product's question (prompts/prove/verifier.md) about scored proofs and is
trained with GRPO on R_format · R_score, R_score = 1 − |s − s*|: K verdicts per proof, each rewarded
for keeping the verdict format and for boxing the proof's label s*. Labels come from each row:

- ``score`` (0, 0.5 or 1): a grade given by a person (the editor's labels) or a stronger judge;
- ``label`` (true / false): a person's right / wrong;
- ``answer`` (a reference answer): the outcome label, 1 when the proof's last boxed answer matches it, else 0.

With ``--eval-data`` (rows in the same forms), the verifier's expected grade on each held-out proof
is measured before and after training: the mean absolute error against the labels, and the AUROC
of the grade for telling proofs labelled 1 from those labelled 0.

``--format-steps N`` first fine-tunes N supervised steps on verdicts written in the format for each
proof's label (format_verdict), as sft-format does for the generator: a small model that never
writes the verdict format earns R_format = 0 on every one of its K verdicts, and GRPO then has no
reward differences to learn from (SmolLM2-135M: 0 of 12 sampled verdicts in the format at 64 tokens).
The format-correctness rate of sampled verdicts is measured before and after that phase, and with
``--eval-data`` the base model's held-out grade (``base/``) beside the one GRPO starts from (``before/``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..algorithms import auroc
from ..config import CommonConfig, ConfigError
from ..events import EventWriter
from ..generation import chunks, complete_batch
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..prompts import verifier_prompt
from ..rewards import CLOSING, OPENING, SELF_SCORES, _boxed, _score_value, parse_verdict, verifier_training_reward
from ..verifiers import local_verifier
from .common import (
    finish,
    group_accumulation_steps,
    lora_for,
    merge_lora_for_generation,
    progress_callbacks,
    read_jsonl,
    run_training,
    save_final,
    trainer_arguments,
)
from .grpo import KL_COEF
from .sft_format import same_answer, training_text

JOB = "verifier"


@dataclass
class VerifierConfig(CommonConfig):
    """Train the proof verifier on scored proofs with GRPO (R_format · R_score)."""

    JOB = JOB
    num_generations: int = field(default=4, metadata={"help": "K: verdicts sampled per proof (at least 2)."})
    problems_per_step: int = field(default=8, metadata={"help": "Proofs per optimizer step over all processes; the accumulation steps follow."})
    max_completion_length: int = field(default=256, metadata={"help": "Tokens per sampled verdict."})
    kl_coef: float = field(default=KL_COEF, metadata={"help": "KL coefficient (TRL's beta) against the initial model; 0 turns it off."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature of the K verdicts."})
    eval_data: str = field(default="", metadata={"help": "JSONL of held-out scored proofs: the grade's error and AUROC before and after training."})
    eval_max_new_tokens: int = field(default=128, metadata={"help": "Tokens of analysis before the held-out grade is read."})
    format_steps: int = field(
        default=0, metadata={"help": "Supervised steps on verdicts in the verifier format before GRPO (0: none); for a model that never writes the format."}
    )
    format_check: int = field(default=8, metadata={"help": "Proofs whose sampled verdicts measure the format rate before and after --format-steps."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("verifier needs --data: JSONL rows with 'problem', 'proof' and one of 'score', 'label' or 'answer'.")
        if self.num_generations < 2:
            raise ConfigError(f"num_generations (K) must be at least 2 (got {self.num_generations}).")
        if self.problems_per_step < 1 or self.kl_coef < 0:
            raise ConfigError("problems_per_step must be at least 1 and kl_coef 0 or more.")
        if self.format_steps < 0 or self.format_check < 0:
            raise ConfigError("format_steps and format_check must be 0 or more.")
        self.gradient_accumulation_steps = group_accumulation_steps(
            self.num_generations, self.problems_per_step, self.batch_size, self.gradient_accumulation_steps
        )


def proof_label(row: dict[str, Any]) -> float | None:
    """The label s* of one scored proof, or None when the row has none a verifier can learn from.

    >>> proof_label({"score": 0.5}), proof_label({"label": False}), proof_label({"proof": "so $\\\\boxed{4}$", "answer": "4"})
    (0.5, 0.0, 1.0)
    >>> proof_label({"proof": "no box", "answer": "4"}), proof_label({"score": 0.7})
    (0.0, None)
    """
    if "score" in row:
        value = _score_value(str(row["score"]))
        return value if value in SELF_SCORES else None
    if isinstance(row.get("label"), bool):
        return 1.0 if row["label"] else 0.0
    if row.get("answer") is not None:
        boxes = _boxed(str(row.get("proof", "")))
        return 1.0 if boxes and same_answer(boxes[-1], str(row["answer"])) else 0.0
    return None


def scored_proofs(path: str) -> list[dict[str, Any]]:
    """Rows of ``path`` as (problem, proof, score); a row without a problem, a proof or a label is refused by line."""
    rows = read_jsonl(path)
    out, bad = [], []
    for i, row in enumerate(rows, 1):
        label = proof_label(row)
        if not row.get("problem") or not row.get("proof") or label is None:
            bad.append(i)
        else:
            out.append({"problem": str(row["problem"]), "proof": str(row["proof"]), "score": label})
    if bad:
        raise ValueError(
            f"{path}: rows {bad[:5]} need 'problem', 'proof' and one of 'score' (0, 0.5, 1), 'label' (true/false) or 'answer' (the reference answer)."
        )
    return out


def held_out_figures(model: Any, tokenizer: Any, rows: list[dict[str, Any]], max_new_tokens: int) -> dict[str, float]:
    """Mean |grade − label| of the verifier's expected grade, and its AUROC for labels 1 against 0."""
    model.eval()
    grades = local_verifier(model, tokenizer, max_new_tokens=max_new_tokens).batch([(r["problem"], r["proof"]) for r in rows])
    figures = {"heldout_grade_error": sum(abs(g - r["score"]) for g, r in zip(grades, rows, strict=True)) / len(rows)}
    ends = [(g, int(r["score"])) for g, r in zip(grades, rows, strict=True) if r["score"] in (0.0, 1.0)]
    area = auroc([g for g, _ in ends], [y for _, y in ends]) if ends else None
    if area is not None:
        figures["heldout_auroc"] = area
    return figures


VERDICT_ANALYSIS = {
    1.0: "each step follows from the one before, and the final answer is justified; I found no issue.",
    0.5: "the final answer is right, but a step is asserted without the reasoning that justifies it.",
    0.0: "the final answer does not follow from the work: a step is wrong, so the proof fails.",
}


def format_verdict(score: float) -> str:
    """A verdict in the product's verifier format for a proof labelled ``score``: what the format
    phase trains on. The analysis is generic; its job is the format and the grade, not the critique.

    >>> from stepwise_trainer.rewards import parse_verdict
    >>> [parse_verdict(format_verdict(s)) for s in (0.0, 0.5, 1.0)]
    [0.0, 0.5, 1.0]
    """
    return f"{OPENING} {VERDICT_ANALYSIS[score]}\n\n{CLOSING} \\boxed{{{score:g}}}"


def format_examples(tokenizer: Any, rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Prompt/completion texts of the format phase, split as sft-format splits its honest-correct
    examples (training_text): the loss falls on the whole verdict only."""
    return [
        training_text(
            tokenizer,
            {
                "prompt": [{"role": "user", "content": verifier_prompt(r["problem"], r["proof"])}],
                "completion": [{"role": "assistant", "content": format_verdict(r["score"])}],
                "correct": True,
            },
        )
        for r in rows
    ]


def format_rate(model: Any, tokenizer: Any, rows: list[dict[str, Any]], max_new_tokens: int, batch_size: int) -> float:
    """Share of verdicts sampled at temperature 1 (as GRPO samples them) that parse_verdict reads."""
    import torch

    model.eval()
    prompts = [
        tokenizer.apply_chat_template([{"role": "user", "content": verifier_prompt(r["problem"], r["proof"])}], tokenize=False, add_generation_prompt=True)
        for r in rows
    ]
    outputs: list[str] = []
    with torch.no_grad():
        for batch in chunks(prompts, batch_size):
            outputs += complete_batch(model, tokenizer, batch, max_new_tokens=max_new_tokens, do_sample=True, temperature=1.0)
    return sum(parse_verdict(o) is not None for o in outputs) / max(1, len(outputs))


def train_format(cfg: VerifierConfig, model: Any, tokenizer: Any, rows: list[dict[str, Any]], events: EventWriter, device: str) -> tuple[Any, dict[str, float]]:
    """The format phase: ``cfg.format_steps`` supervised steps on format_verdict, saved to
    OUT/format/final; returns that model (LoRA merged) and the format rate before and after. A
    resumed job loads the saved model instead: GRPO's checkpoints continue from it."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    phase = dataclasses.replace(cfg, max_steps=cfg.format_steps, output_dir=os.path.join(cfg.output_dir, "format"), resume=False)
    saved = Path(phase.output_dir) / "final"
    if cfg.resume and (saved / "config.json").exists():
        events.progress(0, cfg.max_steps, f"format phase already done: continuing from {saved}")
        return load_causal_lm(str(saved), TRAINED_DTYPE).to(device), {}
    check = rows[: cfg.format_check]
    figures: dict[str, float] = {}
    if check:
        figures["format/rate_before"] = format_rate(model, tokenizer, check, cfg.max_completion_length, cfg.batch_size)
        events.metric(0, figures)
    trainer = SFTTrainer(
        model=model,
        args=SFTConfig(**trainer_arguments(phase, device), max_length=cfg.max_length, completion_only_loss=True),
        train_dataset=Dataset.from_list(format_examples(tokenizer, rows)),
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, phase, f"{JOB} (format)"),
    )
    figures["format/train_loss"] = run_training(trainer, phase)
    model = trainer.model.merge_and_unload() if hasattr(trainer.model, "merge_and_unload") else trainer.model
    save_final(model, tokenizer, phase)
    if check:
        figures["format/rate_after"] = format_rate(model, tokenizer, check, cfg.max_completion_length, cfg.batch_size)
    events.metric(0, figures)
    return model, figures


def run(cfg: VerifierConfig, events: EventWriter, extra_rewards: Sequence[Any] = ()) -> dict[str, float]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    device, _ = pick_device(cfg.device)
    tokenizer = load_tokenizer(cfg.base_model)
    rows = scored_proofs(cfg.data)
    held_out = (
        [r for r in scored_proofs(cfg.eval_data) if (r["problem"], r["proof"]) not in {(t["problem"], t["proof"]) for t in rows}] if cfg.eval_data else []
    )
    counts = {s: sum(r["score"] == s for r in rows) for s in sorted(SELF_SCORES)}
    events.progress(
        0, cfg.max_steps, f"{len(rows)} scored proofs (" + ", ".join(f"{n} scored {s:g}" for s, n in counts.items()) + f"); {len(held_out)} held out"
    )
    dataset = Dataset.from_list([{"prompt": [{"role": "user", "content": verifier_prompt(r["problem"], r["proof"])}], "score": r["score"]} for r in rows])
    model = load_causal_lm(cfg.base_model, TRAINED_DTYPE).to(device)
    formatting: dict[str, float] = {}
    if cfg.format_steps:
        # The base model's held-out grade too, so the format phase's own effect on it is seen.
        if held_out and not cfg.resume:
            formatting = {f"base/{k}": v for k, v in held_out_figures(model, tokenizer, held_out, cfg.eval_max_new_tokens).items()}
            events.metric(0, formatting)
        model, trained = train_format(cfg, model, tokenizer, rows, events, device)
        formatting.update(trained)
    before = held_out_figures(model, tokenizer, held_out, cfg.eval_max_new_tokens) if held_out else {}
    if before:
        events.metric(0, {f"before/{k}": v for k, v in before.items()})
    args = GRPOConfig(
        **trainer_arguments(cfg, device),
        num_generations=cfg.num_generations,
        max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature,
        beta=cfg.kl_coef,
        log_completions=False,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[verifier_training_reward, *extra_rewards],
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, cfg, JOB),
    )
    metrics = {"train_loss": run_training(trainer, cfg), **formatting, **{f"before/{k}": v for k, v in before.items()}}
    if held_out:
        merge_lora_for_generation(trainer.model)
        after = held_out_figures(trainer.model, tokenizer, held_out, cfg.eval_max_new_tokens)
        events.metric(cfg.max_steps, {f"after/{k}": v for k, v in after.items()})
        metrics.update({f"after/{k}": v for k, v in after.items()})
    return finish(trainer, tokenizer, cfg, events, metrics)
