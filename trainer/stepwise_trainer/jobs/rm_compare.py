"""``rm-compare``: PRM vs ORM vs majority vote at picking one of N solutions (the PRM design's table).

Held-out data: the ``prm`` job's rows, each one sampled solution with the problem's reference
``answer``; the solutions of a problem are its candidates. Each method picks one candidate per
problem and is right when that candidate's last boxed answer matches the reference:

- PRM: the highest product of its steps' P(correct) (the design's solution score);
- ORM: the highest P(correct) at the last step;
- majority vote: the most frequent final answer (ties: the first seen), no model at all.

The table goes to stderr and to ``OUT/rm-compare.md``, the figures to ``OUT/rm-compare.json`` and
the ``done`` event. Run it on problems neither model was trained on.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import ConfigError
from ..events import EventWriter
from ..models import load_tokenizer, pick_device
from ..onnx_prm_export import prm_input, read_prm_meta
from ..rewards import _boxed
from .common import read_jsonl
from .prm import POSITIVE
from .sft_format import _plain_answer, same_answer

JOB = "rm-compare"


@dataclass
class RmCompareConfig:
    """Print the PRM vs ORM vs majority-vote table on held-out solutions."""

    JOB = JOB
    data: str = field(default="", metadata={"help": "JSONL: one solution per row (prompt, completions, answer); a problem's rows are its candidates."})
    prm: str = field(default="", metadata={"help": "The prm job's final/ folder ('' leaves the PRM row out)."})
    orm: str = field(default="", metadata={"help": "The orm job's final/ folder ('' leaves the ORM row out)."})
    output_dir: str = field(default="runs/rm-compare", metadata={"help": "Where rm-compare.md and rm-compare.json go."})
    device: str = field(default="auto", metadata={"help": "'auto', 'cpu' or 'cuda'."})

    def __post_init__(self) -> None:
        if not self.data or not Path(self.data).exists():
            raise ConfigError(f"rm-compare needs --data, an existing JSONL file (got {self.data!r}).")


def final_answer(steps: list[str]) -> str | None:
    boxes = _boxed("\n".join(steps))
    return boxes[-1] if boxes else None


def candidate_groups(rows: list[dict[str, Any]]) -> list[tuple[str, str, list[list[str]]]]:
    """(problem, reference answer, candidates' steps) per problem, in first-seen order; rows without an answer are refused."""
    missing = [i for i, r in enumerate(rows, 1) if r.get("answer") is None or not r.get("completions")]
    if missing:
        raise ValueError(f"rows {missing[:5]} need 'completions' and the reference 'answer'.")
    groups: dict[str, tuple[str, list[list[str]]]] = {}
    for r in rows:
        groups.setdefault(r["prompt"], (str(r["answer"]), []))[1].append(list(r["completions"]))
    return [(p, answer, cands) for p, (answer, cands) in groups.items()]


def majority_pick(candidates: list[list[str]]) -> int:
    """The first candidate whose (normalised) final answer is the most frequent one.

    >>> majority_pick([["$\\\\boxed{3}$"], ["$\\\\boxed{4}$"], ["$\\\\boxed{4.0}$"]])
    1
    """
    answers = [final_answer(c) for c in candidates]
    counts = Counter(_plain_answer(a) for a in answers if a is not None)
    if not counts:
        return 0
    top = counts.most_common(1)[0][0]
    return next(i for i, a in enumerate(answers) if a is not None and _plain_answer(a) == top)


def step_probabilities(model: Any, tokenizer: Any, separator: str, problem: str, steps: list[str], device: str) -> list[float]:
    import torch

    ids, ends = prm_input(tokenizer, problem, steps, separator)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids], device=device)).logits[0].float()
    return torch.softmax(logits[ends], dim=-1)[:, POSITIVE].tolist()


def model_scores(folder: str, groups: list[tuple[str, str, list[list[str]]]], device: str, outcome: bool) -> list[list[float]]:
    """Each candidate's score: the product of its step probabilities (PRM) or its last one (ORM)."""
    import torch
    from transformers import AutoModelForTokenClassification

    model = AutoModelForTokenClassification.from_pretrained(folder, dtype=torch.float32).to(device).eval()
    tokenizer, separator = load_tokenizer(folder), read_prm_meta(folder)["step_separator"]
    out = []
    for problem, _, candidates in groups:
        probs = [step_probabilities(model, tokenizer, separator, problem, c, device) for c in candidates]
        out.append([p[-1] if outcome else math.prod(p) for p in probs])
    return out


def key_of(method: str) -> str:
    """The metric name of a method's accuracy: ``majority_vote/accuracy``."""
    return method.replace(" ", "_") + "/accuracy"


def run(cfg: RmCompareConfig, events: EventWriter) -> dict[str, float]:
    device, _ = pick_device(cfg.device)
    groups = candidate_groups(read_jsonl(cfg.data))
    right = [[final_answer(c) is not None and same_answer(final_answer(c) or "", answer) for c in cands] for _, answer, cands in groups]
    picks: dict[str, list[int]] = {"majority vote": [majority_pick(c) for _, _, c in groups]}
    for name, folder, outcome in (("PRM", cfg.prm, False), ("ORM", cfg.orm, True)):
        if folder:
            events.progress(0, 1, f"scoring {sum(len(c) for _, _, c in groups)} solutions with the {name}")
            scores = model_scores(folder, groups, device, outcome)
            picks[name] = [max(range(len(s)), key=lambda i, s=s: s[i]) for s in scores]
    n = len(groups)
    accuracy = {name: sum(r[i] for r, i in zip(right, chosen, strict=True)) / n for name, chosen in picks.items()}
    accuracy["any right"] = sum(any(r) for r in right) / n  # the ceiling: a problem where some candidate is right
    metrics = {"problems": float(n), "candidates": float(sum(len(c) for _, _, c in groups))}
    metrics.update({key_of(name): value for name, value in accuracy.items()})
    table = ["| method | problems | accuracy |", "|---|---|---|"] + [f"| {name} | {n} | {value:.3f} |" for name, value in accuracy.items()]
    text = "\n".join(table) + "\n"
    print(text, file=sys.stderr)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rm-compare.md").write_text(text)
    (out / "rm-compare.json").write_text(json.dumps({"data": cfg.data, "prm": cfg.prm, "orm": cfg.orm, **metrics}, indent=2) + "\n")
    events.done(str(out / "rm-compare.md"), metrics)
    return metrics
