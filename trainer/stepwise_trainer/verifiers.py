"""Verifiers for the GRPO reward: a local model or an OpenAI-compatible endpoint.

Both ask the rubric question of prompts/prove/verifier.md's kind and read a boxed 0 / 0.5 / 1.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

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


def local_verifier(model: Any, tokenizer: Any, max_new_tokens: int = 128) -> Callable[[str, str], float]:
    """A verifier on a local causal LM (greedy)."""
    import torch

    @torch.no_grad()
    def verify(problem: str, proof: str) -> float:
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": RUBRIC.format(problem=problem, proof=proof)}], tokenize=False, add_generation_prompt=True
        )
        ids = tokenizer(text, return_tensors="pt").to(model.device)
        out = model.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
        return read_score(tokenizer.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True))

    return verify
