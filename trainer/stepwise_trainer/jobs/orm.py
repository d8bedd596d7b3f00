"""``orm``: an outcome reward model, the baseline the PRM design compares against.

Same input as the ``prm`` job (``{"prompt", "completions": [step, ...], "labels": [...]}``), same
tokenisation and head, but one label per solution, read at its last step: the outcome. With an
``answer`` field (the reference answer) the outcome is whether the solution's last boxed answer
matches it, as the design's ORM was trained on final-answer checks; without one, whether no step is
labelled wrong. The saved folder is a PRM folder whose last-step P(correct) is the solution's score,
so ``rm-compare`` (and the export) read both models the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..config import ConfigError
from ..events import EventWriter
from ..rewards import _boxed
from .common import read_jsonl
from .prm import NEGATIVE, PrmConfig, step_class, train_token_classifier
from .sft_format import same_answer

JOB = "orm"


@dataclass
class OrmConfig(PrmConfig):
    """Train an outcome reward model: one label per whole solution."""

    JOB = JOB

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.label_classes != 2:
            raise ConfigError("An outcome is right or wrong: orm takes --label-classes 2 only.")


def solution_outcome(row: dict[str, Any]) -> bool:
    """Right or wrong as a whole: the final answer against ``answer`` where given, else no step labelled wrong.

    >>> solution_outcome({"completions": ["2 + 2 = 4", "so $\\\\boxed{4}$"], "labels": [True, True], "answer": "5"})
    False
    >>> solution_outcome({"completions": ["a", "b"], "labels": [1, 0]}), solution_outcome({"completions": ["a"], "labels": [False]})
    (True, False)
    """
    if row.get("answer") is not None:
        boxes = _boxed("\n".join(row["completions"]))
        return bool(boxes) and same_answer(boxes[-1], str(row["answer"]))
    return all(step_class(label, 3) != NEGATIVE for label in row["labels"])


def outcome_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each solution with its outcome on the last step and the other steps unlabelled."""
    out = []
    for row in rows:
        steps = list(row.get("completions") or [])
        if not steps:
            continue
        out.append({"prompt": row["prompt"], "completions": steps, "labels": [None] * (len(steps) - 1) + [solution_outcome(row)]})
    return out


def run(cfg: OrmConfig, events: EventWriter) -> dict[str, float]:
    rows = outcome_rows(read_jsonl(cfg.data))
    right = sum(r["labels"][-1] for r in rows)
    events.progress(0, cfg.max_steps, f"{len(rows)} solutions: {right} right, {len(rows) - right} wrong as a whole")
    return train_token_classifier(cfg, rows, events, JOB)
