"""``adversarial``: a code generator and a test writer trained against each other (seed 002).

For each of the five reasoning stages (prompts/code/stages.json), in order, the schedule runs N
test-writer steps, N generator steps, then K alternating single steps
(``algorithms.adversarial_schedule``). Both roles see the chain so far: the earlier stages'
answers, frozen once their stage is done, then the current stage (see ``Arena``). Each phase is a short TRL ``GRPOTrainer`` run on that
role's model. Rewards come from executing code and tests in the project's sandbox CLI, whose oracle runner
judges the test writer's assertion lines in the host, out of reach of the code under test (verdicts
from inside that process are refused, see ``sandbox.SandboxRunner``):

* generator: pass rate of its final code on the problem's accumulated valid tests
  (``algorithms.generator_reward``); at stages 1-4 its reasoning is carried to code by a greedy
  stage-5 completion of the current generator, so the reward reaches the reasoning tokens;
* test writer: (1 − pass rate of the latest generated code) × validity, validity being the share
  of its tests the reference solution passes (``algorithms.test_writer_reward``); valid tests
  join the accumulated suite.

After every phase both models are saved as ``step-NNNNNN`` (by rank 0 alone under several
processes) with a score 0.7·generator reward + 0.3·test validity; the best is tracked in
``checkpoints/best``. Each role keeps one optimizer for the whole schedule (saved with the
checkpoint, loaded on --resume); with --lora-r the adapters are fresh each phase and so is the optimizer.
Data: JSONL rows ``{"prompt": spec, "entry_point": name, "canonical_solution": body}`` (HumanEval's
fields) or ``{"spec", "function_name", "reference"}``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..algorithms import adversarial_schedule, checkpoint_score
from ..callbacks import _wait_for_all_processes
from ..checkpoints import checkpoint_name, checkpoints_dir, latest_checkpoint, point_latest, write_meta
from ..config import CommonConfig, ConfigError
from ..events import EventWriter, is_secondary_process
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..rewards import RewardFunction
from ..sandbox import DEFAULT_CLI, SandboxRunner
from .adversarial_arena import Arena, _dataset, answer_the_stage, load_problems, make_rewards
from .adversarial_measure import measure
from .common import lora_for, trainer_arguments

JOB = "adversarial"
STAGES_FILE = Path(__file__).resolve().parents[3] / "prompts" / "code" / "stages.json"


@dataclass
class AdversarialConfig(CommonConfig):
    """Train a code generator and a test writer in alternation, stage by stage."""

    JOB = JOB
    test_writer_model: str = field(default="", metadata={"help": "Base model of the test writer; empty means the same as --base-model."})
    stages: str = field(default="1,2,3,4,5", metadata={"help": "Stages to train, in order (comma-separated ids from prompts/code/stages.json)."})
    n_steps: int = field(default=2, metadata={"help": "N: steps of each role at the start of every stage (test writer first, then generator)."})
    k_rounds: int = field(default=2, metadata={"help": "K: alternating single steps after the N + N warm-up of a stage."})
    num_generations: int = field(default=2, metadata={"help": "Completions sampled per problem per step (at least 2; GRPO compares within the group)."})
    max_completion_length: int = field(default=256, metadata={"help": "Tokens per sampled completion."})
    sandbox_cli: str = field(default=DEFAULT_CLI, metadata={"help": "Path of bin/stepwise.js, whose `sandbox` subcommand runs the tests."})
    node: str = field(default="node", metadata={"help": "Node.js executable that runs the sandbox CLI."})
    measure: bool = field(
        default=False,
        metadata={
            "help": "Before and after training: the greedy generator's pass rate on the problems' own tests (HumanEval's check) "
            "and the validity of the greedy test writer's tests (see adversarial_measure)."
        },
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.data:
            raise ConfigError("adversarial needs --data: JSONL of problems with a reference solution (HumanEval's prompt / entry_point / canonical_solution).")
        if self.n_steps < 1 or self.k_rounds < 0:
            raise ConfigError(f"n_steps must be at least 1 and k_rounds at least 0 (got {self.n_steps}, {self.k_rounds}).")
        if self.num_generations < 2:
            raise ConfigError(f"num_generations must be at least 2: GRPO's advantage compares completions of the same problem (got {self.num_generations}).")
        if (self.batch_size * self.gradient_accumulation_steps) % self.num_generations:
            raise ConfigError(
                f"batch_size × gradient_accumulation_steps must be divisible by num_generations ({self.num_generations}); try --batch-size {self.num_generations}."
            )
        try:
            ids = [int(s) for s in self.stages.split(",") if s.strip()]
        except ValueError:
            raise ConfigError(f"stages must be comma-separated numbers from 1 to 5 (got {self.stages!r}).") from None
        if not ids or any(i not in range(1, 6) for i in ids):
            raise ConfigError(f"stages must name stages 1 to 5 (got {self.stages!r}).")
        if not os.path.exists(self.sandbox_cli):
            raise ConfigError(
                f"The sandbox CLI {self.sandbox_cli} does not exist; build the extension (npm run build) or pass --sandbox-cli PATH to bin/stepwise.js."
            )

    @property
    def stage_ids(self) -> list[int]:
        return [int(s) for s in self.stages.split(",") if s.strip()]


def role_optimizer(cfg: AdversarialConfig, model: Any, saved: Path | None = None) -> Any:
    """One AdamW per role for the whole schedule, so a role's moment estimates carry from one of its
    phases to the next instead of starting from zero each time (a phase is often a single step).
    None with --lora-r: each phase adds fresh adapters and merges them, so there is no state to keep."""
    if cfg.lora_r:
        return None
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    if saved is not None and saved.exists():
        optimizer.load_state_dict(torch.load(saved, map_location="cpu"))
    return optimizer


def _train_phase(
    cfg: AdversarialConfig,
    device: str,
    model: Any,
    tokenizer: Any,
    dataset: Any,
    rewards: Sequence[RewardFunction],
    steps: int,
    optimizer: Any = None,
) -> Any:
    from trl import GRPOConfig, GRPOTrainer

    args = trainer_arguments(cfg, device)
    args.update(output_dir=str(Path(cfg.output_dir) / "phase-work"), max_steps=steps, save_strategy="no")
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=list(rewards),
        args=GRPOConfig(**args, num_generations=cfg.num_generations, max_completion_length=cfg.max_completion_length, log_completions=False),
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        optimizers=(optimizer, None),
    )
    trainer.train()
    trained = trainer.model
    return trained.merge_and_unload() if hasattr(trained, "merge_and_unload") else trained


OPTIMIZER_FILE = "optimizer.pt"


def _save(
    cfg: AdversarialConfig,
    step: int,
    phase: int,
    models: dict[str, Any],
    tokenizers: dict[str, Any],
    arena: Arena,
    scores: dict[str, float],
    optimizers: dict[str, Any] | None = None,
) -> Path:
    """Writes the checkpoint on rank 0 only (every rank holds the same weights after a phase; two
    writers would race on one folder), and then lets the other ranks go on."""
    checkpoint = checkpoints_dir(cfg.output_dir) / checkpoint_name(step)
    if is_secondary_process():
        _wait_for_all_processes()
        return checkpoint
    if checkpoint.exists():
        shutil.rmtree(checkpoint)
    for role, model in models.items():
        model.save_pretrained(checkpoint / role)
        tokenizers[role].save_pretrained(checkpoint / role)
        if optimizers and optimizers.get(role) is not None:
            import torch

            torch.save(optimizers[role].state_dict(), checkpoint / role / OPTIMIZER_FILE)
    (checkpoint / "arena.json").write_text(json.dumps({"suite": arena.suite, "latest_code": arena.latest_code, "outputs": arena.outputs}))
    write_meta(checkpoint, step, JOB, {"phase": phase, **scores})
    point_latest(cfg.output_dir, checkpoint)
    _wait_for_all_processes()
    return checkpoint


def run(cfg: AdversarialConfig, events: EventWriter, extra_rewards: Sequence[RewardFunction] = ()) -> dict[str, float]:
    """Runs the schedule. ``extra_rewards`` is for Python callers only (tests, experiments):
    TRL-contract functions added to both roles' sandbox rewards, never replacing them. The
    command line offers no way to change the rewards.
    """
    device, _ = pick_device(cfg.device)
    chain = json.loads(STAGES_FILE.read_text(encoding="utf-8"))
    stages = {s["id"]: s for s in chain["stages"]}
    arena = Arena(load_problems(cfg.data), stages, SandboxRunner(cfg.sandbox_cli, cfg.node), chain["opening"])
    schedule = adversarial_schedule(cfg.stage_ids, cfg.n_steps, cfg.k_rounds)
    total_steps = sum(steps for _, _, steps in schedule)
    sources = {"generator": cfg.base_model, "test_writer": cfg.test_writer_model or cfg.base_model}
    start_phase, step, best = 0, 0, {"score": -1.0, "step": 0}
    if cfg.resume:
        latest = latest_checkpoint(cfg.output_dir)
        if latest is None:
            raise FileNotFoundError(f"--resume was given but {checkpoints_dir(cfg.output_dir)} has no complete checkpoint.")
        meta = json.loads((latest / "meta.json").read_text())
        start_phase, step = meta["phase"] + 1, meta["step"]
        best = {"score": meta.get("bestScore", -1.0), "step": meta.get("bestStep", 0)}
        saved = json.loads((latest / "arena.json").read_text())
        arena.suite, arena.latest_code = saved["suite"], saved["latest_code"]
        arena.outputs = [{int(stage): text for stage, text in per_problem.items()} for per_problem in saved.get("outputs", arena.outputs)]
        sources = {role: str(latest / role) for role in sources}
    tokenizers = {role: load_tokenizer(src) for role, src in sources.items()}
    models = {role: load_causal_lm(src, TRAINED_DTYPE).to(device) for role, src in sources.items()}
    resumed_from = latest_checkpoint(cfg.output_dir) if cfg.resume else None
    optimizers = {role: role_optimizer(cfg, models[role], resumed_from / role / OPTIMIZER_FILE if resumed_from else None) for role in models}
    measured: dict[str, float] = {}
    if cfg.measure and not cfg.resume:
        events.progress(step, total_steps, "measuring pass rate and test validity before training")
        measured = {f"before/{k}": v for k, v in measure(arena, models, tokenizers, cfg.max_completion_length).items()}
        events.metric(step, measured)
    gen_reward, validity = 0.5, 0.0
    for phase, (stage, role, steps) in enumerate(schedule):
        if phase < start_phase:
            continue
        events.progress(step, total_steps, f"stage {stage}: {role} for {steps} step(s)")
        if role == "test-writer":
            answer_the_stage(arena, stage, models["generator"], tokenizers["generator"], cfg.max_completion_length)
        generator_fn, test_writer_fn = make_rewards(arena, stage, models["generator"], tokenizers["generator"], cfg.max_completion_length)
        key = "generator" if role == "generator" else "test_writer"
        reward = generator_fn if role == "generator" else test_writer_fn
        arena.generator_rewards, arena.validities = [], []
        models[key] = _train_phase(cfg, device, models[key], tokenizers[key], _dataset(arena, stage, role), [reward, *extra_rewards], steps, optimizers[key])
        step += steps
        if arena.generator_rewards:
            gen_reward = sum(arena.generator_rewards) / len(arena.generator_rewards)
        if arena.validities:
            validity = sum(arena.validities) / len(arena.validities)
        score = checkpoint_score(gen_reward, validity)
        if score > best["score"]:
            best = {"score": score, "step": step}
        scores = {
            "stage": stage,
            "role": role,
            "score": score,
            "generatorReward": gen_reward,
            "testValidity": validity,
            "bestScore": best["score"],
            "bestStep": best["step"],
        }
        events.metric(
            step,
            {
                "adversarial/generator_reward": gen_reward,
                "adversarial/test_validity": validity,
                "adversarial/checkpoint_score": score,
                "adversarial/suite_size": float(sum(map(len, arena.suite))),
            },
        )
        checkpoint = _save(cfg, step, phase, models, tokenizers, arena, scores, optimizers)
        if best["step"] == step and not is_secondary_process():
            (checkpoints_dir(cfg.output_dir) / "best").write_text(checkpoint.name + "\n")
        events.checkpoint(step, str(checkpoint))
    if cfg.measure:
        events.progress(step, total_steps, "measuring pass rate and test validity after training")
        # The saved models, loaded as a user loads them: the trained objects still carry the
        # trainer's settings (TRL turns the KV cache off), and their greedy outputs differed from
        # the same weights loaded fresh (pass rate 0 against 0.25 with weights moved by 2e-6).
        saved = latest_checkpoint(cfg.output_dir)
        if saved is not None:
            models = {role: load_causal_lm(str(saved / role), TRAINED_DTYPE).to(device).eval() for role in models}
        after = {f"after/{k}": v for k, v in measure(arena, models, tokenizers, cfg.max_completion_length).items()}
        events.metric(step, after)
        measured.update(after)
    best_path = checkpoints_dir(cfg.output_dir) / checkpoint_name(best["step"])
    metrics = {
        **measured,
        "best_score": best["score"],
        "best_step": float(best["step"]),
        "generator_reward": gen_reward,
        "test_validity": validity,
        "sandbox_runs": float(arena.sandbox.calls),
        "sandbox_timeouts": float(arena.sandbox.timeouts),
    }
    events.done(str(best_path / "generator"), metrics)
    return metrics
