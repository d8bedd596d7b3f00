"""Algorithm maths of the designs as pure functions (no torch), tested on CPU.

Shapes are plain Python sequences; each function says what it expects.
"""

from __future__ import annotations

from collections.abc import Sequence


def variance(xs: Sequence[float]) -> float:
    """Population variance; 0 for fewer than two values.

    >>> variance([1, 0])
    0.25
    """
    if len(xs) < 2:
        return 0.0
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / len(xs)


def score_consistency(scores_per_answer: Sequence[Sequence[float]]) -> float:
    """R_cons = 1 - mean over answers of Var(repeated judge scores) (seed 001).

    scores_per_answer: [answers][passes], scores in [0, 1].

    >>> score_consistency([[1, 0], [0.5, 0.5]])
    0.875
    """
    judged = [s for s in scores_per_answer if s]
    if not judged:
        return 0.0
    return 1.0 - sum(variance(s) for s in judged) / len(judged)


def separation(strong: Sequence[float], weak: Sequence[float]) -> float | None:
    """R_sep = E[J(strong)] - E[J(weak)]; None when either side is empty.

    >>> round(separation([1.0, 0.8], [0.2, 0.4]), 6)
    0.6
    """
    if not strong or not weak:
        return None
    return sum(strong) / len(strong) - sum(weak) / len(weak)


def agreement_rate(winners: Sequence[str | None]) -> float | None:
    """Share of agreeing pairs among repeated judgments of one answer pair.

    >>> agreement_rate(["a", "a", "a", "b"])
    0.5
    """
    m = len(winners)
    if m < 2:
        return None
    counts: dict[str | None, int] = {}
    for w in winners:
        counts[w] = counts.get(w, 0) + 1
    return sum(c * (c - 1) / 2 for c in counts.values()) / (m * (m - 1) / 2)


def question_reward(r_cons: float, r_sep: float | None, r_stab: float, weights: tuple[float, float, float] = (0.4, 0.3, 0.3)) -> float:
    """R_G = f(R_cons, R_sep, R_stab), the default f a weighted sum (unmeasurable R_sep counts 0).

    >>> round(question_reward(0.9, 0.5, 0.8), 2)
    0.75
    """
    w_cons, w_sep, w_stab = weights
    return w_cons * r_cons + w_sep * (r_sep or 0.0) + w_stab * r_stab


def passes_reliability(r_cons: float, r_sep: float | None, r_stab: float, thresholds: tuple[float, float, float]) -> bool:
    """Training is restricted to questions meeting every threshold (seed 001).

    >>> passes_reliability(0.9, 0.2, 0.8, (0.8, 0.1, 0.7)), passes_reliability(0.9, None, 0.8, (0.8, 0.1, 0.7))
    (True, False)
    """
    t_cons, t_sep, t_stab = thresholds
    return r_cons >= t_cons and r_sep is not None and r_sep >= t_sep and r_stab >= t_stab


def generator_reward(passed: int, total: int) -> float:
    """Pass rate of the generated code; 0.5 (neutral) without tests (seed 002).

    >>> generator_reward(8, 10), generator_reward(0, 0)
    (0.8, 0.5)
    """
    return 0.5 if total == 0 else passed / total


def test_writer_reward(generator_pass_rate: float, validity: float, total: int) -> float:
    """(1 - generator pass rate) * test validity; nothing without tests (seed 002).

    >>> round(test_writer_reward(0.8, 1.0, 10), 2), round(test_writer_reward(0.8, 0.6, 10), 2)
    (0.2, 0.12)
    """
    return 0.0 if total == 0 else (1.0 - generator_pass_rate) * validity


def checkpoint_score(generator_reward_value: float, test_validity: float) -> float:
    """0.7 * generator reward + 0.3 * test validity: how checkpoints are ranked (seed 002).

    >>> round(checkpoint_score(0.75, 0.92), 3)
    0.801
    """
    return 0.7 * generator_reward_value + 0.3 * test_validity


def adversarial_schedule(stages: Sequence[int], n: int, k: int) -> list[tuple[int, str, int]]:
    """The N+N+K pattern per stage: N test-writer steps, N generator steps, then K alternating
    single steps starting with the generator. Returns (stage, role, steps) phases in order.

    >>> adversarial_schedule([1], 2, 3)
    [(1, 'test-writer', 2), (1, 'generator', 2), (1, 'generator', 1), (1, 'test-writer', 1), (1, 'generator', 1)]
    """
    phases: list[tuple[int, str, int]] = []
    for stage in stages:
        phases.append((stage, "test-writer", n))
        phases.append((stage, "generator", n))
        for i in range(k):
            phases.append((stage, "generator" if i % 2 == 0 else "test-writer", 1))
    return phases


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """Area under the ROC curve by the rank statistic; None without both classes.

    >>> auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]), auroc([0.5, 0.5], [1, 0])
    (1.0, 0.5)
    """
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def f1(scores: Sequence[float], labels: Sequence[int], threshold: float = 0.5) -> float:
    """F1 of the positive class at a threshold.

    >>> f1([0.9, 0.2, 0.7], [1, 1, 0])
    0.5
    """
    predicted = [1 if s >= threshold else 0 for s in scores]
    tp = sum(1 for p, y in zip(predicted, labels, strict=True) if p == 1 and y == 1)
    fp = sum(1 for p, y in zip(predicted, labels, strict=True) if p == 1 and y == 0)
    fn = sum(1 for p, y in zip(predicted, labels, strict=True) if p == 0 and y == 1)
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
