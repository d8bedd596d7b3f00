"""Verifiers for the GRPO reward: a local model or an OpenAI-compatible endpoint.

Both ask the rubric question of prompts/prove/verifier.md's kind. The local one reads the grade as
the expected value of the model's probabilities of 0, 0.5 and 1; an endpoint's reply is parsed for
its last boxed 0 / 0.5 / 1, since chat completions give no probabilities to read.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from .generation import chunks, complete_batch
from .rewards import _boxed, _score_value

RUBRIC = (
    "You are a strict grader. Grade the proof of the problem below.\n\n# Problem\n{problem}\n\n# Proof\n{proof}\n\n"
    "Check every step. End with \\boxed{{1}} if the proof is complete and rigorous, \\boxed{{0.5}} if it is correct with "
    "minor gaps, \\boxed{{0}} if it is wrong."
)


def read_score(text: str) -> float:
    """The last boxed 0 / 0.5 / 1 of a verdict; an unreadable verdict scores 0 (no credit unproven)."""
    boxes = _boxed(re.sub(r"<think>[\s\S]*?(</think>|$)", "", text))
    value = _score_value(boxes[-1]) if boxes else None
    return 0.0 if value is None else value


def endpoint_verifier(base_url: str, model: str, api_key: str | None = None, timeout: float = 120.0) -> Callable[[str, str], float]:
    """A verifier on an OpenAI-compatible server (llama.cpp server, vLLM, Ollama)."""
    url = base_url.rstrip("/")
    if not url.endswith("/v1"):
        url += "/v1"
    url += "/chat/completions"

    def verify(problem: str, proof: str) -> float:
        body = json.dumps(
            {"model": model, "messages": [{"role": "user", "content": RUBRIC.format(problem=problem, proof=proof)}], "temperature": 0, "max_tokens": 256}
        ).encode()
        req = urllib.request.Request(
            url, data=body, headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                reply = json.load(resp)
        except urllib.error.URLError as e:
            raise RuntimeError(f"The verifier endpoint {url} did not answer: {e}") from None
        return read_score(reply["choices"][0]["message"]["content"])

    return verify


SCORE_CHOICES = {"0": 0.0, "0.5": 0.5, "1": 1.0}
GRADE_CUE = "\n\nGrade: \\boxed{"


def choice_distribution(model: Any, prefix_ids: list[int], choice_ids: list[list[int]]) -> list[float]:
    """P(choice | prefix), renormalised over the choices: each choice's token log-probabilities summed,
    all choices teacher-forced in one right-padded batch (right padding leaves the real tokens' positions alone)."""
    import torch

    n, longest = len(prefix_ids), max(len(c) for c in choice_ids)
    rows = [prefix_ids + c + [0] * (longest - len(c)) for c in choice_ids]
    mask = [[1] * (n + len(c)) + [0] * (longest - len(c)) for c in choice_ids]
    logits = model(input_ids=torch.tensor(rows, device=model.device), attention_mask=torch.tensor(mask, device=model.device)).logits
    logp = logits.float().log_softmax(-1)
    totals = torch.stack([sum(logp[r, n - 1 + j, t] for j, t in enumerate(c)) for r, c in enumerate(choice_ids)])
    return totals.softmax(0).tolist()


class LocalVerifier:
    """A verifier on a local causal LM: a greedy analysis, then the expected grade under the model's
    probabilities of 0, 0.5 and 1 in the box, never a number parsed out of free text. The model's
    own "\\boxed{" ends the analysis where it writes one; otherwise a grade cue is appended.

    ``batch`` grades many proofs with one generation per ``batch_size`` of them: GRPO grades every
    completion of a step, and one at a time the verifier's analyses took as long as the policy's
    sampling (about half of a 60 s step on an H100)."""

    def __init__(self, model: Any, tokenizer: Any, max_new_tokens: int = 128, batch_size: int = 16) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size
        self.choices = list(SCORE_CHOICES)
        # "}" closes each choice, so "0" is not credited with the probability mass of "0.5".
        self.choice_ids = [tokenizer(c + "}", add_special_tokens=False)["input_ids"] for c in self.choices]

    def __call__(self, problem: str, proof: str) -> float:
        return self.batch([(problem, proof)])[0]

    def batch(self, pairs: list[tuple[str, str]]) -> list[float]:
        """The grade of every (problem, proof), in order; the same grades as one at a time."""
        import torch

        grades: list[float] = []
        with torch.no_grad():
            for part in chunks(pairs, self.batch_size):
                texts = [
                    self.tokenizer.apply_chat_template(
                        [{"role": "user", "content": RUBRIC.format(problem=problem, proof=proof)}], tokenize=False, add_generation_prompt=True
                    )
                    for problem, proof in part
                ]
                analyses = complete_batch(
                    self.model,
                    self.tokenizer,
                    texts,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                    stop_strings=["\\boxed{"],
                )
                grades += [self._expected_grade(text, analysis) for text, analysis in zip(texts, analyses, strict=True)]
        return grades

    def _expected_grade(self, text: str, analysis: str) -> float:
        box = analysis.find("\\boxed{")
        prefix = text + (analysis[: box + len("\\boxed{")] if box >= 0 else analysis.rstrip() + GRADE_CUE)
        probs = choice_distribution(self.model, self.tokenizer(prefix)["input_ids"], self.choice_ids)
        return sum(p * SCORE_CHOICES[c] for p, c in zip(probs, self.choices, strict=True))


def local_verifier(model: Any, tokenizer: Any, max_new_tokens: int = 128, batch_size: int = 16) -> LocalVerifier:
    """The verifier of the GRPO reward on a local model (see LocalVerifier)."""
    return LocalVerifier(model, tokenizer, max_new_tokens, batch_size)
