"""``prm``: a process reward model from step labels (TRL's stepwise-supervision format).

Each example is ``{"prompt", "completions": [step, ...], "labels": [bool, ...]}``. The model reads
the problem and the steps, each followed by a separator; a 2-way token-classification head
predicts at each separator whether the step is correct (the PRM of "Let's Verify Step by
Step"). With ``--label-classes 3`` the head has three classes, as that design's labellers used:
positive, negative and neutral (a step that is correct but does not move the solution on), given as
labels 1, -1 and 0 (``true``/``false`` still mean 1/-1). Class 1 is "positive" in both heads, so a
step's score, P(correct), is read from the same index by the export and the extension. TRL 1.x no longer ships its PRM trainer, so the tokenisation is written here and the
training loop is the Hugging Face Trainer. Step-level AUROC and F1 on a held-out split are
reported before and after training.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import torch

from ..algorithms import auroc, f1
from ..config import CommonConfig, ConfigError
from ..events import EventWriter
from ..models import TRAINED_DTYPE, load_token_classifier, load_tokenizer, pick_device
from ..onnx_prm_export import prm_input, write_prm_meta
from .common import finish, lora_for, progress_callbacks, read_jsonl, run_training, trainer_arguments

JOB = "prm"


@dataclass
class PrmConfig(CommonConfig):
    """Train a process reward model from exported step labels."""

    JOB = JOB
    step_separator: str = field(default="\n", metadata={"help": "Text after each step; the PRM's prediction for a step is read at its last token."})
    eval_fraction: float = field(
        default=0.2,
        metadata={"help": "Share of solutions held out, whole problems at a time, to measure step-level AUROC / F1 before and after."},
    )
    label_classes: int = field(
        default=2,
        metadata={
            "help": "2: correct / wrong (a neutral step counts as correct); 3: positive (1), negative (-1) and neutral (0) kept apart, P(correct) = P(positive)."
        },
    )
    eval_min_solutions: int = field(
        default=10,
        metadata={
            "help": "Hold solutions out only when at least this many are labelled; with fewer, every label trains (an AUROC on one or two held-out solutions says nothing, and a person's newest labels must reach the model)."
        },
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("prm needs --data: a JSONL file of {prompt, completions, labels} rows (stepwise labels export --format trl).")
        if not 0 < self.eval_fraction < 1:
            raise ConfigError(f"eval_fraction must be between 0 and 1 (got {self.eval_fraction}).")
        if self.label_classes not in (2, 3):
            raise ConfigError(f"label_classes must be 2 or 3 (got {self.label_classes}).")


def split_by_problem(prompts: list[str], fraction: float, seed: int, min_solutions: int) -> tuple[list[int], list[int]]:
    """Indices of the held-out and the training solutions, with every solution of a problem on one side.

    Holding out single solutions would leave their problem's other solutions in training, and the
    held-out AUROC would then measure how well the PRM remembers a problem (on the CPU loop run it
    read 0.84 while held-out problems stayed at chance). Problems are drawn in a seeded order until
    at least ``fraction`` of the solutions are held out; with fewer than ``min_solutions`` solutions
    or a single problem nothing is held out.

    >>> split_by_problem(["a", "a", "b", "b", "c"], 0.2, seed=0, min_solutions=2)
    ([0, 1], [2, 3, 4])
    >>> split_by_problem(["a", "a", "a"], 0.5, seed=0, min_solutions=2)
    ([], [0, 1, 2])
    """
    problems = list(dict.fromkeys(prompts))
    if len(prompts) < max(2, min_solutions) or len(problems) < 2:
        return [], list(range(len(prompts)))
    random.Random(seed).shuffle(problems)
    sizes = Counter(prompts)
    wanted = max(1, int(len(prompts) * fraction))
    held: set[str] = set()
    count = 0
    # Never the last problem: something must be left to train on.
    for problem in problems[:-1]:
        if count >= wanted:
            break
        held.add(problem)
        count += sizes[problem]
    return [i for i, p in enumerate(prompts) if p in held], [i for i, p in enumerate(prompts) if p not in held]


POSITIVE, NEGATIVE, NEUTRAL = 1, 0, 2
"""Class indices: positive is 1 in both heads (the export's CORRECT_LABEL); neutral only in the 3-class one."""


def step_class(label: Any, classes: int) -> int:
    """The class of one step label: true / 1 positive, false / -1 negative, 0 neutral (positive in the 2-class head).

    >>> [step_class(x, 3) for x in (True, False, 1, -1, 0)], [step_class(x, 2) for x in (1, -1, 0)]
    ([1, 0, 1, 0, 2], [1, 0, 1])
    """
    if isinstance(label, bool):
        return POSITIVE if label else NEGATIVE
    if label not in (1, 0, -1):
        raise ValueError(f"a step label is true / false or 1 / 0 / -1 (positive / neutral / negative), not {label!r}")
    if label == 0:
        return NEUTRAL if classes == 3 else POSITIVE
    return POSITIVE if label == 1 else NEGATIVE


def tokenize_example(row: dict[str, Any], tokenizer: Any, separator: str, max_length: int, classes: int = 2) -> dict[str, list[int]]:
    """input_ids with each step's class on its last token (see step_class), -100 elsewhere."""
    if len(row["completions"]) != len(row["labels"]):
        raise ValueError("each example needs one label per completion step")
    ids, ends = prm_input(tokenizer, row["prompt"], row["completions"], separator)
    labels = [-100] * len(ids)
    for end, label in zip(ends, row["labels"], strict=True):
        # None leaves a step unlabelled: the orm job labels only a solution's last step.
        labels[end] = -100 if label is None else step_class(label, classes)
    return {"input_ids": ids[:max_length], "attention_mask": [1] * min(len(ids), max_length), "labels": labels[:max_length]}


@torch.no_grad()
def step_scores(model: Any, examples: list[dict[str, list[int]]], device: str) -> tuple[list[float], list[int]]:
    """P(correct) at every labelled step of every example, with 1 for a step that is not wrong and 0 for one that is."""
    model.eval()
    scores: list[float] = []
    truth: list[int] = []
    for ex in examples:
        ids = torch.tensor([ex["input_ids"]], device=device)
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0].float()
        probs = torch.softmax(logits, dim=-1)[:, POSITIVE].tolist()
        for p, y in zip(probs, ex["labels"], strict=True):
            # AUROC / F1 ask "is the step correct?": a neutral step is not wrong.
            if y != -100:
                scores.append(p)
                truth.append(0 if y == NEGATIVE else 1)
    return scores, truth


def evaluate(model: Any, examples: list[dict[str, list[int]]], device: str) -> dict[str, float]:
    scores, truth = step_scores(model, examples, device)
    result = {"f1": f1(scores, truth), "steps": float(len(truth))}
    a = auroc(scores, truth)
    if a is not None:
        result["auroc"] = a
    return result


def run(cfg: PrmConfig, events: EventWriter) -> dict[str, float]:
    return train_token_classifier(cfg, read_jsonl(cfg.data), events, JOB)


def train_token_classifier(cfg: PrmConfig, rows: list[dict[str, Any]], events: EventWriter, job: str) -> dict[str, float]:
    """Trains the head on ``rows`` (prompt, completions, labels) and saves it as a PRM folder: the prm
    job's step labels, or the orm job's one outcome label per solution."""
    from transformers import DataCollatorForTokenClassification, Trainer, TrainingArguments

    device, _ = pick_device(cfg.device)
    tokenizer = load_tokenizer(cfg.base_model)
    examples = [tokenize_example(r, tokenizer, cfg.step_separator, cfg.max_length, cfg.label_classes) for r in rows]
    held_idx, train_idx = split_by_problem([r["prompt"] for r in rows], cfg.eval_fraction, cfg.seed, cfg.eval_min_solutions)
    held_out = [examples[i] for i in held_idx]
    train = [examples[i] for i in train_idx]
    random.Random(cfg.seed).shuffle(train)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    problems = len({rows[i]["prompt"] for i in held_idx})
    events.progress(0, cfg.max_steps, f"{len(train)} training and {len(held_out)} held-out solutions ({problems} held-out problems); {world} process(es)")

    model = load_token_classifier(cfg.base_model, TRAINED_DTYPE, cfg.label_classes)
    model.config.pad_token_id = tokenizer.pad_token_id
    if cfg.lora_r:
        from peft import get_peft_model

        model = get_peft_model(model, lora_for(cfg, "TOKEN_CLS"))
    model.to(device)
    before = evaluate(model, held_out, device) if held_out else {}
    events.metric(0, {f"before/{k}": v for k, v in before.items()})

    trainer = Trainer(
        model=model,
        args=TrainingArguments(**trainer_arguments(cfg, device)),
        train_dataset=train,
        data_collator=DataCollatorForTokenClassification(tokenizer),
        callbacks=progress_callbacks(events, cfg, job),
    )
    loss = run_training(trainer, cfg)
    after = evaluate(trainer.model, held_out, device) if held_out else {}
    events.metric(cfg.max_steps, {f"after/{k}": v for k, v in after.items()})
    metrics = {**{f"before/{k}": v for k, v in before.items()}, **{f"after/{k}": v for k, v in after.items()}, "train_loss": loss}
    # The export and the extension must tokenise steps the way training did.
    return finish(trainer, tokenizer, cfg, events, metrics, beside_model=lambda final: write_prm_meta(final, cfg.step_separator))
