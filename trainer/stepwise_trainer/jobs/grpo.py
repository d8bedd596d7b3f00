"""``grpo``: train the generator with the self-verification reward (seed 000) on TRL's GRPOTrainer.

K completions per problem (``num_generations``, default 4) are scored by
R = R_format·(α·R_Y + β·R_Z), the verifier being a local model path or an OpenAI-compatible
endpoint; GRPO turns the group's rewards into advantages. Data: JSONL rows with a ``problem``
(saved Prove runs or MATH-500 problems). With ``--eval-data``, the mean reward of K samples per
held-out problem is measured before and after training, from the same random seed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import CommonConfig, ConfigError
from ..events import EventWriter
from ..generation import chunks, complete_batch
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..prompts import generator_prompt
from ..rewards import ALPHA, BETA, RewardFunction, format_reward, make_self_verification_reward
from ..verifiers import endpoint_verifier, local_verifier
from .common import finish, lora_for, merge_lora_for_generation, progress_callbacks, read_jsonl, run_training, trainer_arguments

JOB = "grpo"


@dataclass
class GrpoConfig(CommonConfig):
    """Train the generator with GRPO and the self-verification reward."""

    JOB = JOB
    num_generations: int = field(default=4, metadata={"help": "K: completions sampled per problem (at least 2; GRPO compares within the group)."})
    max_completion_length: int = field(default=256, metadata={"help": "Tokens per sampled completion."})
    verifier: str = field(default="self", metadata={"help": "'self' (the base model judges), a local model folder, or an endpoint URL (http://...)."})
    verifier_model: str = field(default="", metadata={"help": "Model name at the verifier endpoint."})
    alpha: float = field(default=ALPHA, metadata={"help": "Weight α of the proof score R_Y."})
    beta: float = field(default=BETA, metadata={"help": "Weight β of the self-evaluation reward R_Z."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature of the K completions."})
    eval_data: str = field(
        default="",
        metadata={
            "help": "JSONL of held-out problems: the mean reward and format rate of K samples each, before and after training. "
            "With --verifier self the judge trains too; give a separate verifier for a fixed one."
        },
    )
    verifier_batch_size: int = field(default=16, metadata={"help": "Proofs a local verifier grades together (left-padded); raise it on a GPU."})
    eval_batch_size: int = field(default=1, metadata={"help": "Held-out problems sampled together (left-padded); raise it on a GPU."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("grpo needs --data: JSONL rows with a 'problem' field.")
        if self.num_generations < 2:
            raise ConfigError(
                f"num_generations (K) must be at least 2: GRPO's advantage compares completions of the same problem (got {self.num_generations})."
            )
        effective = self.batch_size * self.gradient_accumulation_steps
        if effective % self.num_generations:
            raise ConfigError(
                f"batch_size × gradient_accumulation_steps ({effective}) must be divisible by num_generations ({self.num_generations}): "
                f"each problem's {self.num_generations} completions must land in the same batch. Try --batch-size {self.num_generations}."
            )
        if self.eval_batch_size < 1 or self.verifier_batch_size < 1:
            raise ConfigError("eval_batch_size and verifier_batch_size must be at least 1.")
        if abs(self.alpha + self.beta - 1) > 1e-6:
            raise ConfigError(f"alpha + beta must be 1 (got {self.alpha} + {self.beta}).")


def run(cfg: GrpoConfig, events: EventWriter, extra_rewards: Sequence[RewardFunction] = ()) -> dict[str, float]:
    """Trains with the design's reward. ``extra_rewards`` is for Python callers only (tests,
    experiments): TRL-contract functions added to that reward, never replacing it, each logged as
    ``rewards/<function name>/mean``. The command line offers no way to change the reward.
    """
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    device, dtype = pick_device(cfg.device)
    tokenizer = load_tokenizer(cfg.base_model)
    rows = read_jsonl(cfg.data)
    missing = [i for i, r in enumerate(rows, 1) if not r.get("problem")]
    if missing:
        raise ValueError(f"{cfg.data}: rows {missing[:5]} have no 'problem' field.")
    dataset = Dataset.from_list([{"prompt": [{"role": "user", "content": generator_prompt(r["problem"])}], "problem": r["problem"]} for r in rows])
    model = load_causal_lm(cfg.base_model, TRAINED_DTYPE).to(device)
    if cfg.verifier.startswith("http"):
        verifier = endpoint_verifier(cfg.verifier, cfg.verifier_model)
    elif cfg.verifier == "self":
        verifier = local_verifier(model, tokenizer, batch_size=cfg.verifier_batch_size)
    else:
        verifier = local_verifier(load_causal_lm(cfg.verifier, dtype).to(device), load_tokenizer(cfg.verifier), batch_size=cfg.verifier_batch_size)
    reward = make_self_verification_reward(verifier, alpha=cfg.alpha, beta=cfg.beta)
    held_out = held_out_problems(cfg, {r["problem"] for r in rows}, events)

    def measuring(when: str) -> Callable[[int], None]:
        return lambda i: events.progress(
            0 if when == "before" else cfg.max_steps, cfg.max_steps, f"held-out reward {when} training: problem {i + 1} of {len(held_out)}"
        )

    before = held_out_reward(model, tokenizer, held_out, cfg, reward, measuring("before")) if held_out else {}
    if before:
        events.metric(0, {f"before/{k}": v for k, v in before.items()})
    args = GRPOConfig(
        **trainer_arguments(cfg, device),
        num_generations=cfg.num_generations,
        max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature,
        log_completions=False,
        # TRL sums its reward functions. R_format already multiplies the design's reward, so the
        # separate format_reward is logged (rewards/format_reward/mean) with weight 0, never added.
        reward_weights=[1.0, 0.0] + [1.0] * len(extra_rewards),
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward, format_reward, *extra_rewards],
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, cfg, JOB),
    )
    metrics = {"train_loss": run_training(trainer, cfg), **{f"before/{k}": v for k, v in before.items()}}
    if held_out:
        merge_lora_for_generation(trainer.model)
        after = held_out_reward(trainer.model, tokenizer, held_out, cfg, reward, measuring("after"))
        events.metric(cfg.max_steps, {f"after/{k}": v for k, v in after.items()})
        metrics.update({f"after/{k}": v for k, v in after.items()})
    return finish(trainer, tokenizer, cfg, events, metrics)


def held_out_problems(cfg: GrpoConfig, training: set[str], events: EventWriter) -> list[str]:
    """--eval-data's problems, less any that are also trained on (their reward would not be held out)."""
    if not cfg.eval_data:
        return []
    problems = [r["problem"] for r in read_jsonl(cfg.eval_data) if r.get("problem")]
    kept = [p for p in problems if p not in training]
    if not kept:
        raise ValueError(f"{cfg.eval_data}: none of its {len(problems)} problems is held out (every one is also in --data).")
    events.progress(
        0, cfg.max_steps, f"{len(kept)} held-out problems" + (f" ({len(problems) - len(kept)} also in --data left out)" if len(kept) < len(problems) else "")
    )
    return kept


def held_out_reward(
    model: Any, tokenizer: Any, problems: list[str], cfg: GrpoConfig, reward: RewardFunction, on_problem: Callable[[int], None]
) -> dict[str, float]:
    """Mean design reward and R_format rate of K completions per problem, sampled as in training (same
    temperature and length) from --seed, so the before and after figures draw the same random stream.
    --eval-batch-size problems are sampled together; the batches are the same before and after."""
    import torch

    model.eval()
    torch.manual_seed(cfg.seed)
    rewards: list[float] = []
    formats: list[float] = []
    with torch.no_grad():
        for start, batch in zip(range(0, len(problems), cfg.eval_batch_size), chunks(problems, cfg.eval_batch_size), strict=True):
            on_problem(start)
            prompts = [[{"role": "user", "content": generator_prompt(problem)}] for problem in batch]
            texts = complete_batch(
                model,
                tokenizer,
                [tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True) for p in prompts],
                do_sample=True,
                temperature=cfg.temperature,
                max_new_tokens=cfg.max_completion_length,
                num_return_sequences=cfg.num_generations,
            )
            # complete_batch keeps each prompt's K completions together, in prompt order.
            repeated = [i for i in range(len(batch)) for _ in range(cfg.num_generations)]
            completions = [[{"role": "assistant", "content": t}] for t in texts]
            their_prompts = [prompts[i] for i in repeated]
            rewards += reward(their_prompts, completions, problem=[batch[i] for i in repeated])
            formats += format_reward(their_prompts, completions)
    n = max(1, len(rewards))
    return {"heldout_reward": sum(rewards) / n, "heldout_format_rate": sum(formats) / n}


def problems_from_runs(paths: list[str]) -> list[dict[str, str]]:
    """GRPO data from saved Prove runs (.stepwise/runs/*.json)."""
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            run = json.load(f)
        out.append({"problem": run["problem"]["text"]})
    return out
