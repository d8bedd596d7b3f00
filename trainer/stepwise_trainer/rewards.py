"""Reward functions of the designs, as plain functions with TRL's contract.

Every reward function takes ``(prompts, completions, **columns)`` and returns one float (or
``None`` for "not applicable") per completion, so it plugs straight into ``GRPOTrainer``.

The self-verification reward (seed 000): the generator writes ``## Solution`` and
``## Self Evaluation`` ending in ``\\boxed{s}`` with s in {0, 0.5, 1}; a verifier scores the proof
(R_Y); a meta-verifier checks the self-evaluation's claims (R_meta)::

    R_score = 1 - |s - R_Y|
    R_Z     = R_score * R_meta
    R       = R_format * (alpha * R_Y + beta * R_Z)        alpha = 0.76, beta = 0.24

>>> round(self_verification_reward(1, verifier_score=0.5, self_score=0.5, meta_score=1.0), 2)  # honest
0.62
>>> round(self_verification_reward(1, verifier_score=0.5, self_score=1.0, meta_score=1.0), 2)  # dishonest
0.5
>>> self_verification_reward(0, verifier_score=1.0, self_score=1.0, meta_score=1.0)  # wrong format
0.0
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .design import ALPHA, BETA

OPENING = "Here is my evaluation of the solution:"
CLOSING = "Based on my evaluation, the final overall score should be:"
SELF_SCORES = (0.0, 0.5, 1.0)


@dataclass
class ParsedProof:
    proof: str
    self_analysis: str
    self_score: float | None
    format_reward: int
    problems: list[str] = field(default_factory=list)


def _boxed(text: str) -> list[str]:
    """Contents of every ``\\boxed{...}`` with balanced braces."""
    found, i = [], 0
    while (i := text.find("\\boxed{", i)) >= 0:
        depth, j = 0, i + len("\\boxed")
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    found.append(text[i + len("\\boxed{") : j].strip())
                    break
            j += 1
        i = j
    return found


def _score_value(raw: str) -> float | None:
    raw = raw.replace(" ", "")
    frac = re.fullmatch(r"\\[dt]?frac\{1\}\{2\}", raw)
    if frac:
        return 0.5
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value in SELF_SCORES else None


def parse_proof_output(text: str) -> ParsedProof:
    """Splits generator output into proof, self-analysis and self-score. Never raises.

    >>> p = parse_proof_output("## Solution\\nx\\n## Self Evaluation\\nHere is my evaluation of the solution: ok\\n"
    ...                        "Based on my evaluation, the final overall score should be: \\\\boxed{0.5}")
    >>> (p.self_score, p.format_reward)
    (0.5, 1)
    >>> parse_proof_output("just text").format_reward
    0
    """
    problems: list[str] = []
    text = re.sub(r"<think>[\s\S]*?(</think>|$)", "", text or "")
    sol = re.search(r"^[ \t]{0,3}##[ \t]+Solution[ \t]*$", text, re.M)
    ev = re.search(r"^[ \t]{0,3}##[ \t]+Self Evaluation[ \t]*$", text, re.M)
    if not sol:
        problems.append("missing '## Solution' section")
    if not ev:
        problems.append("missing '## Self Evaluation' section")
    if sol and ev and ev.start() < sol.start():
        problems.append("'## Self Evaluation' comes before '## Solution'")
    proof = text[sol.end() : ev.start() if ev and ev.start() > sol.end() else len(text)].strip() if sol else ""
    analysis = text[ev.end() :].strip() if ev else ""
    self_score: float | None = None
    if ev:
        if OPENING not in analysis:
            problems.append("the self evaluation does not start with the required sentence")
        closing_at = analysis.rfind(CLOSING)
        if closing_at < 0:
            problems.append("the self evaluation does not end with the required sentence")
        else:
            boxes = _boxed(analysis[closing_at:])
            if len(boxes) != 1:
                problems.append(f"expected one \\boxed{{}} after the closing sentence, found {len(boxes)}")
            else:
                self_score = _score_value(boxes[0])
                if self_score is None:
                    problems.append(f"self-score {boxes[0]!r} is not one of 0, 0.5, 1")
    format_reward = 1 if (sol and ev and not problems and proof) else 0
    if sol and not proof:
        problems.append("the solution is empty")
    return ParsedProof(proof, analysis, self_score, format_reward, problems)


def self_verification_reward(
    format_reward: int, verifier_score: float, self_score: float | None, meta_score: float, alpha: float = ALPHA, beta: float = BETA
) -> float:
    """R = R_format * (alpha * R_Y + beta * R_score * R_meta); a missing self-score earns R_Z = 0."""
    if not format_reward:
        return 0.0
    r_score = 0.0 if self_score is None else 1.0 - abs(self_score - verifier_score)
    return alpha * verifier_score + beta * r_score * meta_score


def completion_text(completion: Any) -> str:
    """TRL passes plain strings, or chat messages for conversational datasets."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    return str(completion)


def format_reward(prompts: Sequence[Any], completions: Sequence[Any], **_: Any) -> list[float]:
    """R_format alone: 1 for the Solution / Self Evaluation / boxed-score format, else 0.

    >>> format_reward(["p"], ["no format"])
    [0.0]
    """
    return [float(parse_proof_output(completion_text(c)).format_reward) for c in completions]


RewardFunction = Callable[..., list]
"""TRL's reward contract: ``(prompts, completions, **columns) -> [float | None, ...]``, one per completion."""

Verifier = Callable[[str, str], float]
"""(problem, proof) -> score in [0, 1]. A verifier may also have ``batch([(problem, proof), ...])``."""

MetaVerifier = Callable[[str, str, str], float]
"""(problem, proof, self-analysis) -> R_meta in [0, 1]: are the issues the self-analysis names real? May have ``batch``."""


def grade_all(judge: Callable[..., float], items: list[tuple[str, ...]]) -> list[float]:
    """Grades of every item: in batches where the judge has a ``batch`` method, else one at a time.

    >>> grade_all(lambda problem, proof: len(proof) / 10, [("p", "ab"), ("q", "abcd")])
    [0.2, 0.4]
    """
    batch = getattr(judge, "batch", None)
    return list(batch(items)) if callable(batch) else [judge(*item) for item in items]


def make_self_verification_reward(verifier: Verifier, meta_verifier: MetaVerifier | None = None, alpha: float = ALPHA, beta: float = BETA):
    """The GRPO reward of seed 000 around a verifier and a meta-verifier (R_meta = 1 without one).

    >>> reward = make_self_verification_reward(lambda problem, proof: 0.5)
    >>> out = ("## Solution\\nproof\\n## Self Evaluation\\nHere is my evaluation of the solution: a gap.\\n"
    ...        "Based on my evaluation, the final overall score should be: \\\\boxed{0.5}")
    >>> [round(r, 2) for r in reward(["Prove it."], [out])]
    [0.62]
    >>> hallucinated = make_self_verification_reward(lambda problem, proof: 0.5, lambda problem, proof, analysis: 0.0)
    >>> [round(r, 2) for r in hallucinated(["Prove it."], [out])]  # R_Z = R_score·R_meta = 0: only α·R_Y is left
    [0.38]
    >>> hallucinated.last_parts  # what the judges said about each completion of the last call (None: not asked)
    [{'format': 1, 'r_y': 0.5, 'self_score': 0.5, 'r_meta': 0.0}]
    """
    parts: list[dict[str, Any]] = []

    def self_verification(prompts: Sequence[Any], completions: Sequence[Any], problem: Sequence[str] | None = None, **_: Any) -> list[float]:
        # TRL passes the dataset's other columns by name. The prompt is the generator's instructions
        # around the problem; the verifier and meta-verifier must judge the proof against the
        # problem alone, so the `problem` column wins where the data has one.
        problems = list(problem) if problem is not None else [completion_text(p) for p in prompts]
        parsed = [parse_proof_output(completion_text(c)) for c in completions]
        # Only proofs in the format are graded (R_format = 0 zeroes the rest), all of them at once.
        graded = [i for i, p in enumerate(parsed) if p.format_reward]
        grades = dict(zip(graded, grade_all(verifier, [(problems[i], parsed[i].proof) for i in graded]), strict=True))
        # R_meta only multiplies R_score: where the self-score is missed entirely (R_score = 0) or β = 0
        # it cannot change the reward, so the meta-verifier is not asked (it costs a generation each).
        r_score = {i: 0.0 if parsed[i].self_score is None else 1.0 - abs(parsed[i].self_score - grades[i]) for i in graded}
        asked = [i for i in graded if meta_verifier is not None and beta > 0 and r_score[i] > 0]
        metas = (
            dict(zip(asked, grade_all(meta_verifier, [(problems[i], parsed[i].proof, parsed[i].self_analysis) for i in asked]), strict=True)) if asked else {}
        )
        # The parts of the last call, kept so a held-out record can say what the verifier graded and
        # its discrimination can be checked against reference answers the reward never sees.
        parts.clear()
        parts.extend(
            {"format": parsed[i].format_reward, "r_y": grades.get(i), "self_score": parsed[i].self_score, "r_meta": metas.get(i)} for i in range(len(parsed))
        )
        return [
            self_verification_reward(1, grades[i], parsed[i].self_score, metas.get(i, 1.0), alpha, beta) if i in grades else 0.0 for i in range(len(parsed))
        ]

    self_verification.__name__ = "self_verification"
    self_verification.last_parts = parts  # type: ignore[attr-defined]
    return self_verification


def parse_verdict(text: str) -> float | None:
    """The grade of a verifier's output in the product's verifier format (prompts/prove/verifier.md):
    it opens with the evaluation sentence and ends with the closing sentence and one boxed 0 / 0.5 / 1.
    None when the format is broken. Never raises.

    >>> parse_verdict("Here is my evaluation of the solution: step 2 divides by zero. "
    ...               "Based on my evaluation, the final overall score should be: \\\\boxed{0}")
    0.0
    >>> parse_verdict("The proof is fine. \\\\boxed{1}") is None
    True
    """
    text = re.sub(r"<think>[\s\S]*?(</think>|$)", "", text or "").strip()
    closing_at = text.rfind(CLOSING)
    if not text.startswith(OPENING) or closing_at < 0:
        return None
    boxes = _boxed(text[closing_at:])
    return _score_value(boxes[0]) if len(boxes) == 1 else None


def verifier_training_reward(prompts: Sequence[Any], completions: Sequence[Any], score: Sequence[float], **_: Any) -> list[float]:
    """The verifier's GRPO reward (seed 000's verifier stage): R_format · R_score, R_score = 1 − |s − s*|
    with s the grade the verifier boxes and s* the proof's label (the dataset's ``score`` column).

    >>> out = ("Here is my evaluation of the solution: no issues. "
    ...        "Based on my evaluation, the final overall score should be: \\\\boxed{1}")
    >>> verifier_training_reward(["p", "p", "p"], [out, out, "no format"], score=[1.0, 0.5, 1.0])
    [1.0, 0.5, 0.0]
    """
    rewards = []
    for completion, label in zip(completions, score, strict=True):
        grade = parse_verdict(completion_text(completion))
        rewards.append(0.0 if grade is None else 1.0 - abs(grade - float(label)))
    return rewards
