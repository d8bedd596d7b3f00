"""``grpo``: train the generator with the self-verification reward (seed 000) on TRL's GRPOTrainer.

K completions per problem (``num_generations``, default 4, the design's) for 8 problems per
optimizer step are scored by R = R_format·(α·R_Y + β·R_score·R_meta); GRPO turns each group's
rewards into advantages, and a KL penalty (``--kl-coef``, TRL's ``beta``) holds the policy near the
initial model. The verifier and meta-verifier ask the product's prompts and are not the policy
unless ``--allow-self-verifier`` says so (see ``judges``). Data: JSONL rows with a ``problem``
(saved Prove runs or MATH-500 problems). With ``--eval-data``, the mean reward of K samples per
held-out problem is measured before and after training, from the same random seed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import CommonConfig, ConfigError
from ..events import EventWriter, is_secondary_process
from ..generation import chunks, complete_batch
from ..judges import SELF, SELF_WARNING, JudgeCostCallback, build_judges
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..prompts import generator_prompt
from ..rewards import ALPHA, BETA, RewardFunction, format_reward, make_self_verification_reward
from .common import finish, group_accumulation_steps, lora_for, merge_lora_for_generation, progress_callbacks, read_jsonl, run_training, trainer_arguments

JOB = "grpo"

KL_COEF = 0.04
"""TRL's ``beta``. DeepSeekMath's GRPO used 0.04; TRL defaults to 0 (no reference model) and cites
DeepSeek-R1's 0.001, both for rewards a program checks. Here R_Y and R_meta come from a small learned judge a policy can
learn to please, so the KL term stays on by default; 0 turns it off and saves the reference model."""

PRESETS: dict[str, dict[str, Any]] = {
    # A 2-core CPU or a small GPU: groups of 2 for 2 problems, 4 completions per step instead of 32.
    "small-machine": {"num_generations": 2, "problems_per_step": 2, "max_completion_length": 128},
}


@dataclass
class GrpoConfig(CommonConfig):
    """Train the generator with GRPO and the self-verification reward."""

    JOB = JOB
    PRESETS = PRESETS
    preset: str = field(default="", metadata={"help": f"Named settings for options not given on the command line or in --config: {', '.join(PRESETS)}."})
    num_generations: int = field(
        default=4, metadata={"help": "K: completions sampled per problem (at least 2; GRPO compares within the group). The design uses 4."}
    )
    problems_per_step: int = field(
        default=8,
        metadata={
            "help": "Problems per optimizer step, over all processes (the design's 8): K × this many completions make one update, "
            "--batch-size of them at a time (the gradient accumulation steps follow)."
        },
    )
    max_completion_length: int = field(default=256, metadata={"help": "Tokens per sampled completion."})
    kl_coef: float = field(
        default=KL_COEF, metadata={"help": "KL coefficient (TRL's beta) against the initial model; 0 turns the penalty off. Not the reward weight --beta."}
    )
    verifier: str = field(
        default="frozen",
        metadata={
            "help": "Who grades the proofs: 'frozen' (a copy of the base model that never trains), a model folder "
            "(the verifier job's final/), an endpoint URL (http://...), or 'self' (the policy; needs --allow-self-verifier)."
        },
    )
    allow_self_verifier: bool = field(
        default=False, metadata={"help": "Accept --verifier self: the policy grades its own proofs (the design warns against it)."}
    )
    verifier_model: str = field(default="", metadata={"help": "Model name at the verifier endpoint."})
    meta_verify: bool = field(
        default=True, metadata={"help": "R_meta from the product's meta-verifier prompt (R_Z = R_score·R_meta); --no-meta-verify sets R_meta = 1."}
    )
    verifier_max_new_tokens: int = field(default=128, metadata={"help": "Tokens of analysis a local verifier or meta-verifier writes before its grade."})
    alpha: float = field(default=ALPHA, metadata={"help": "Weight α of the proof score R_Y."})
    beta: float = field(default=BETA, metadata={"help": "Weight β of the self-evaluation reward R_Z (not the KL coefficient: that is --kl-coef)."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature of the K completions."})
    eval_data: str = field(
        default="",
        metadata={"help": "JSONL of held-out problems: the mean reward and format rate of K samples each, before and after training."},
    )
    verifier_batch_size: int = field(default=16, metadata={"help": "Proofs a local verifier grades together (left-padded); raise it on a GPU."})
    eval_batch_size: int = field(default=1, metadata={"help": "Held-out problems sampled together (left-padded); raise it on a GPU."})
    held_out_before: str = field(
        default="",
        metadata={
            "help": "A held-out-before.jsonl an earlier run recorded from the same --base-model, --eval-data, --seed and sampling settings "
            "(the run this one resumes): its figures stand for the measurement before training instead of sampling them again."
        },
    )
    eval_generations: int = field(
        default=0,
        metadata={
            "help": "Completions sampled per held-out problem; 0: K (--num-generations). Fewer per problem buys more problems for the same time, "
            "and a paired interval over problems narrows with problems."
        },
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.preset and self.preset not in PRESETS:
            raise ConfigError(f"Unknown preset {self.preset!r}; the presets are: {', '.join(PRESETS)}.")
        if not self.data:
            raise ConfigError("grpo needs --data: JSONL rows with a 'problem' field.")
        if self.num_generations < 2:
            raise ConfigError(
                f"num_generations (K) must be at least 2: GRPO's advantage compares completions of the same problem (got {self.num_generations})."
            )
        if self.problems_per_step < 1:
            raise ConfigError(f"problems_per_step must be at least 1 (got {self.problems_per_step}).")
        if self.verifier == SELF and not self.allow_self_verifier:
            raise ConfigError(
                "--verifier self makes the policy grade its own proofs, which it can learn to please. "
                "Use 'frozen', a trained verifier (the verifier job), or an endpoint; or add --allow-self-verifier to accept it."
            )
        if self.kl_coef < 0:
            raise ConfigError(f"kl_coef must be 0 or more (got {self.kl_coef}).")
        self.gradient_accumulation_steps = group_accumulation_steps(
            self.num_generations, self.problems_per_step, self.batch_size, self.gradient_accumulation_steps
        )
        if self.eval_batch_size < 1 or self.verifier_batch_size < 1:
            raise ConfigError("eval_batch_size and verifier_batch_size must be at least 1.")
        if self.eval_generations < 0:
            raise ConfigError(f"eval_generations must be 0 (K) or more (got {self.eval_generations}).")
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
    if cfg.verifier == SELF:
        events.progress(0, cfg.max_steps, SELF_WARNING)
    judges = build_judges(
        cfg.verifier,
        base_model=cfg.base_model,
        policy=model,
        policy_tokenizer=tokenizer,
        device=device,
        dtype=dtype,
        endpoint_model=cfg.verifier_model,
        meta_verify=cfg.meta_verify,
        max_new_tokens=cfg.verifier_max_new_tokens,
        batch_size=cfg.verifier_batch_size,
    )
    events.progress(
        0,
        cfg.max_steps,
        f"verifier: {judges.described}; meta-verification {'on' if cfg.meta_verify else 'off'}; KL coefficient {cfg.kl_coef}; "
        f"{cfg.problems_per_step} problems × {cfg.num_generations} completions per step",
    )
    costs = JudgeCostCallback(events, judges)
    reward = make_self_verification_reward(judges.verifier, judges.meta_verifier, alpha=cfg.alpha, beta=cfg.beta)
    held_out = held_out_problems(cfg, {r["problem"] for r in rows}, events)

    def measuring(when: str) -> Callable[[int], None]:
        return lambda i: events.progress(
            0 if when == "before" else cfg.max_steps, cfg.max_steps, f"held-out reward {when} training: problem {i + 1} of {len(held_out)}"
        )

    def record(when: str) -> str:
        os.makedirs(cfg.output_dir, exist_ok=True)
        return os.path.join(cfg.output_dir, f"held-out-{when}.jsonl")

    if cfg.held_out_before and held_out:
        before = recorded_held_out(cfg.held_out_before, held_out, cfg.eval_generations or cfg.num_generations, record("before"))
    else:
        before = held_out_reward(model, tokenizer, held_out, cfg, reward, measuring("before"), record("before")) if held_out else {}
    if before:
        events.metric(0, {f"before/{k}": v for k, v in {**before, **costs.take()}.items()})
    args = GRPOConfig(
        **trainer_arguments(cfg, device),
        num_generations=cfg.num_generations,
        max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature,
        beta=cfg.kl_coef,
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
        callbacks=[*progress_callbacks(events, cfg, JOB), costs],
    )
    metrics = {"train_loss": run_training(trainer, cfg), **{f"before/{k}": v for k, v in before.items()}}
    metrics.update({f"train/{k}": v for k, v in costs.totals.items()})
    if held_out:
        merge_lora_for_generation(trainer.model)
        after = held_out_reward(trainer.model, tokenizer, held_out, cfg, reward, measuring("after"), record("after"))
        events.metric(cfg.max_steps, {f"after/{k}": v for k, v in {**after, **costs.take()}.items()})
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
    model: Any,
    tokenizer: Any,
    problems: list[str],
    cfg: GrpoConfig,
    reward: RewardFunction,
    on_problem: Callable[[int], None],
    record: str | None = None,
) -> dict[str, float]:
    """Mean design reward and R_format rate of K completions per problem (--eval-generations), sampled as in training (same
    temperature and length) from --seed, so the before and after figures draw the same random stream.
    --eval-batch-size problems are sampled together; the batches are the same before and after.
    ``record`` names a JSONL file that keeps every completion with its reward, so a change can be
    tested per problem (a paired interval) and checked against reference answers the reward never saw;
    with the design's reward it also keeps the verifier's grade R_Y and R_meta (None where not asked),
    so the verifier's own discrimination can be measured on the same completions."""
    import torch

    model.eval()
    torch.manual_seed(cfg.seed)
    per_problem = cfg.eval_generations or cfg.num_generations
    rewards: list[float] = []
    formats: list[float] = []
    kept: list[dict[str, Any]] = []
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
                num_return_sequences=per_problem,
            )
            # complete_batch keeps each prompt's completions together, in prompt order.
            repeated = [i for i in range(len(batch)) for _ in range(per_problem)]
            completions = [[{"role": "assistant", "content": t}] for t in texts]
            their_prompts = [prompts[i] for i in repeated]
            scored = reward(their_prompts, completions, problem=[batch[i] for i in repeated])
            # The design's reward keeps what its judges said (R_Y, R_meta); a plain reward function has none.
            said = list(getattr(reward, "last_parts", None) or [{}] * len(texts))
            formatted = format_reward(their_prompts, completions)
            kept += [
                {"problem": batch[i], "completion": t, "reward": r, "format": f, **{k: v for k, v in parts.items() if k in ("r_y", "r_meta", "self_score")}}
                for i, t, r, f, parts in zip(repeated, texts, scored, formatted, said, strict=True)
            ]
            rewards += scored
            formats += formatted
    if record and not is_secondary_process():
        with open(record, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(k) + "\n" for k in kept)
    n = max(1, len(rewards))
    return {"heldout_reward": sum(rewards) / n, "heldout_format_rate": sum(formats) / n}


def recorded_held_out(path: str, problems: list[str], per_problem: int, record: str) -> dict[str, float]:
    """The figures of a held-out record an earlier run wrote (``held_out_reward``'s file), refused
    unless it holds exactly ``per_problem`` completions of each held-out problem, in order: a record
    of other problems or other settings is no measurement of this run's starting point. The record
    is copied to ``record`` so this run's folder holds its before and after side by side."""
    import shutil

    rows = read_jsonl(path)
    expected = [p for p in problems for _ in range(per_problem)]
    if [r.get("problem") for r in rows] != expected:
        raise ValueError(
            f"{path} does not record {per_problem} completions of each of the {len(problems)} held-out problems in --eval-data, in order; "
            "measure the held-out reward again (leave out --held-out-before)."
        )
    if os.path.abspath(path) != os.path.abspath(record) and not is_secondary_process():
        os.makedirs(os.path.dirname(record) or ".", exist_ok=True)
        shutil.copyfile(path, record)
    return {
        "heldout_reward": sum(float(r["reward"]) for r in rows) / len(rows),
        "heldout_format_rate": sum(float(r["format"]) for r in rows) / len(rows),
    }


def problems_from_runs(paths: list[str]) -> list[dict[str, str]]:
    """GRPO data from saved Prove runs (.stepwise/runs/*.json)."""
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            run = json.load(f)
        out.append({"problem": run["problem"]["text"]})
    return out
