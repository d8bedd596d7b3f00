"""The judges of the GRPO reward: the verifier (R_Y) and the meta-verifier (R_meta).

Both ask the product's questions (prompts/prove/verifier.md and meta-verifier.md), on a local model
or an OpenAI-compatible endpoint. The local one reads the grade as the expected value of the
model's probabilities of 0, 0.5 and 1 in the box; an endpoint's reply is parsed for its last boxed
0 / 0.5 / 1, since chat completions give no probabilities to read. Every judge counts what it cost
(calls, seconds, tokens) so the training log can say what meta-verification adds.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .generation import chunks, complete_batch
from .prompts import meta_verifier_prompt, verifier_prompt
from .rewards import _boxed, _score_value

Render = Callable[..., str]
"""Builds a judge's question from one item: (problem, proof) for the verifier, (problem, proof, self-analysis) for the meta-verifier."""


@dataclass
class JudgeCost:
    """What a judge spent since the last ``take``: GRPO logs it every step."""

    calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    generated_tokens: int = 0

    def take(self, prefix: str) -> dict[str, float]:
        """The figures under ``prefix/``, then zero again."""
        out = {f"{prefix}/{k}": float(v) for k, v in vars(self).items()}
        self.calls, self.seconds, self.prompt_tokens, self.generated_tokens = 0, 0.0, 0, 0
        return out


def read_score(text: str) -> float:
    """The last boxed 0 / 0.5 / 1 of a verdict; an unreadable verdict scores 0 (no credit unproven)."""
    boxes = _boxed(re.sub(r"<think>[\s\S]*?(</think>|$)", "", text))
    value = _score_value(boxes[-1]) if boxes else None
    return 0.0 if value is None else value


class EndpointJudge:
    """A judge on an OpenAI-compatible server (llama.cpp server, vLLM, Ollama)."""

    def __init__(self, base_url: str, model: str, render: Render, api_key: str | None = None, timeout: float = 120.0) -> None:
        url = base_url.rstrip("/")
        self.url = (url if url.endswith("/v1") else url + "/v1") + "/chat/completions"
        self.model, self.render, self.api_key, self.timeout = model, render, api_key, timeout
        self.cost = JudgeCost()

    def __call__(self, *item: str) -> float:
        return self.batch([item])[0]

    def batch(self, items: list[tuple[str, ...]]) -> list[float]:
        return [self._ask(self.render(*item)) for item in items]

    def _ask(self, question: str) -> float:
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": question}], "temperature": 0, "max_tokens": 512}).encode()
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})}
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(urllib.request.Request(self.url, data=body, headers=headers), timeout=self.timeout) as resp:
                reply = json.load(resp)
        except urllib.error.URLError as e:
            raise RuntimeError(f"The judge endpoint {self.url} did not answer: {e}") from None
        usage = reply.get("usage") or {}
        self.cost.calls += 1
        self.cost.seconds += time.perf_counter() - started
        self.cost.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.cost.generated_tokens += int(usage.get("completion_tokens") or 0)
        return read_score(reply["choices"][0]["message"]["content"])


SCORE_CHOICES = {"0": 0.0, "0.5": 0.5, "1": 1.0}
GRADE_CUE = "\n\nBased on my evaluation, the final overall score should be: \\boxed{"


def choice_distribution(model: Any, prefix_ids: list[int], choice_ids: list[list[int]]) -> list[float]:
    """P(choice | prefix), renormalised over the choices: each choice's token log-probabilities summed.
    The prefix (the whole question and analysis, hundreds of tokens) runs through the model once;
    each choice (two to four tokens) continues from a copy of its cached keys and values. Scoring the
    three choices as three full rows made reading a grade cost three passes over the prompt, most
    of what a judge spent per proof on a CPU."""
    import copy

    import torch

    out = model(input_ids=torch.tensor([prefix_ids], device=model.device), use_cache=True)
    first = out.logits[0, -1].float().log_softmax(-1)
    totals = []
    for k, choice in enumerate(choice_ids):
        total = first[choice[0]]
        if len(choice) > 1:
            # The cache grows in place, so every choice but the last continues from a copy.
            cache = out.past_key_values if k == len(choice_ids) - 1 else copy.deepcopy(out.past_key_values)
            rest = model(input_ids=torch.tensor([choice[:-1]], device=model.device), past_key_values=cache, use_cache=True).logits
            logp = rest[0].float().log_softmax(-1)
            total = total + sum(logp[j, t] for j, t in enumerate(choice[1:]))
        totals.append(total)
    return torch.stack(totals).softmax(0).tolist()


class LocalJudge:
    """A judge on a local causal LM: a greedy analysis, then the expected grade under the model's
    probabilities of 0, 0.5 and 1 in the box, never a number parsed out of free text. The model's
    own "\\boxed{" ends the analysis where it writes one; otherwise the prompt's closing sentence is appended.

    ``batch`` grades many items with one generation per ``batch_size`` of them: GRPO grades every
    completion of a step, and one at a time the verifier's analyses took as long as the policy's
    sampling (about half of a 60 s step on an H100)."""

    def __init__(self, model: Any, tokenizer: Any, render: Render, max_new_tokens: int = 128, batch_size: int = 16) -> None:
        self.model, self.tokenizer, self.render = model, tokenizer, render
        self.max_new_tokens, self.batch_size = max_new_tokens, batch_size
        self.choices = list(SCORE_CHOICES)
        # "}" closes each choice, so "0" is not credited with the probability mass of "0.5".
        self.choice_ids = [tokenizer(c + "}", add_special_tokens=False)["input_ids"] for c in self.choices]
        self.cost = JudgeCost()

    def __call__(self, *item: str) -> float:
        return self.batch([item])[0]

    def batch(self, items: list[tuple[str, ...]]) -> list[float]:
        """The grade of every item, in order; the same grades as one at a time."""
        import torch

        started = time.perf_counter()
        grades: list[float] = []
        with torch.no_grad():
            for part in chunks(items, self.batch_size):
                texts = [
                    self.tokenizer.apply_chat_template([{"role": "user", "content": self.render(*item)}], tokenize=False, add_generation_prompt=True)
                    for item in part
                ]
                analyses = complete_batch(self.model, self.tokenizer, texts, max_new_tokens=self.max_new_tokens, do_sample=False, stop_strings=["\\boxed{"])
                grades += [self._expected_grade(text, analysis) for text, analysis in zip(texts, analyses, strict=True)]
                self.cost.prompt_tokens += sum(len(self.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)
                self.cost.generated_tokens += sum(len(self.tokenizer(a, add_special_tokens=False)["input_ids"]) for a in analyses)
        self.cost.calls += len(items)
        self.cost.seconds += time.perf_counter() - started
        return grades

    def _expected_grade(self, text: str, analysis: str) -> float:
        box = analysis.find("\\boxed{")
        prefix = text + (analysis[: box + len("\\boxed{")] if box >= 0 else analysis.rstrip() + GRADE_CUE)
        probs = choice_distribution(self.model, self.tokenizer(prefix)["input_ids"], self.choice_ids)
        return sum(p * SCORE_CHOICES[c] for p, c in zip(probs, self.choices, strict=True))


def local_verifier(model: Any, tokenizer: Any, max_new_tokens: int = 128, batch_size: int = 16) -> LocalJudge:
    """R_Y on a local model: (problem, proof) -> expected grade under prompts/prove/verifier.md."""
    return LocalJudge(model, tokenizer, verifier_prompt, max_new_tokens, batch_size)


def local_meta_verifier(model: Any, tokenizer: Any, max_new_tokens: int = 128, batch_size: int = 16) -> LocalJudge:
    """R_meta on a local model: (problem, proof, self-analysis) -> expected grade under prompts/prove/meta-verifier.md."""
    return LocalJudge(model, tokenizer, meta_verifier_prompt, max_new_tokens, batch_size)


def endpoint_verifier(base_url: str, model: str, api_key: str | None = None, timeout: float = 120.0) -> EndpointJudge:
    return EndpointJudge(base_url, model, verifier_prompt, api_key, timeout)


def endpoint_meta_verifier(base_url: str, model: str, api_key: str | None = None, timeout: float = 120.0) -> EndpointJudge:
    return EndpointJudge(base_url, model, meta_verifier_prompt, api_key, timeout)
