"""Which models judge GRPO's completions, and what judging costs per step.

The self-verification design trains the generator against a verifier trained first, never against
itself: a policy that grades its own proofs learns to please its grader. So the verifier is, by
default, a frozen copy of the initial model; a verifier trained by the ``verifier`` job, an
OpenAI-compatible endpoint, or ``self`` (only with ``--allow-self-verifier``) are the other choices.
The meta-verifier (R_meta) is the same judge asked the product's meta-verifier question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transformers import TrainerCallback

from .events import EventWriter
from .models import load_causal_lm, load_tokenizer
from .verifiers import EndpointJudge, LocalJudge, endpoint_meta_verifier, endpoint_verifier, local_meta_verifier, local_verifier

FROZEN = "frozen"
SELF = "self"
SELF_WARNING = (
    "warning: the policy is its own verifier (--verifier self). It grades its own proofs and can learn to please "
    "itself instead of proving; use a trained verifier (the verifier job), 'frozen' or an endpoint for a fixed judge."
)


def is_endpoint(verifier: str) -> bool:
    return verifier.startswith(("http://", "https://"))


@dataclass
class Judges:
    verifier: LocalJudge | EndpointJudge
    meta_verifier: LocalJudge | EndpointJudge | None
    described: str


def build_judges(
    verifier: str,
    *,
    base_model: str,
    policy: Any,
    policy_tokenizer: Any,
    device: str,
    dtype: Any,
    endpoint_model: str = "",
    meta_verify: bool = True,
    max_new_tokens: int = 128,
    batch_size: int = 16,
) -> Judges:
    """The verifier and meta-verifier ``verifier`` names: 'frozen' (a copy of ``base_model`` that never
    trains), 'self' (``policy`` itself), an endpoint URL, or a model folder (the ``verifier`` job's ``final/``)."""
    if is_endpoint(verifier):
        return Judges(
            endpoint_verifier(verifier, endpoint_model),
            endpoint_meta_verifier(verifier, endpoint_model) if meta_verify else None,
            f"the endpoint {verifier}",
        )
    if verifier == SELF:
        model, tokenizer, described = policy, policy_tokenizer, "the policy itself"
    else:
        source = base_model if verifier == FROZEN else verifier
        model = load_causal_lm(source, dtype).to(device).eval()
        model.requires_grad_(False)
        tokenizer = load_tokenizer(source)
        described = f"a frozen copy of {base_model}" if verifier == FROZEN else verifier
    return Judges(
        local_verifier(model, tokenizer, max_new_tokens, batch_size),
        local_meta_verifier(model, tokenizer, max_new_tokens, batch_size) if meta_verify else None,
        described,
    )


class JudgeCostCallback(TrainerCallback):
    """After every optimizer step, a metric event with what verifying and meta-verifying cost in it
    (``verify/seconds``, ``meta_verify/generated_tokens``, ...); the totals go into the final metrics."""

    def __init__(self, events: EventWriter, judges: Judges) -> None:
        self.events, self.judges = events, judges
        self.totals: dict[str, float] = {}

    def take(self) -> dict[str, float]:
        figures = self.judges.verifier.cost.take("verify")
        if self.judges.meta_verifier is not None:
            figures.update(self.judges.meta_verifier.cost.take("meta_verify"))
        for k, v in figures.items():
            self.totals[k] = self.totals.get(k, 0.0) + v
        return figures

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        figures = self.take()
        if state.is_world_process_zero:
            self.events.metric(state.global_step, figures)
