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

import gzip
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..algorithms import adversarial_schedule, checkpoint_score, generator_reward, test_writer_reward
from ..callbacks import _wait_for_all_processes
from ..checkpoints import checkpoint_name, checkpoints_dir, latest_checkpoint, point_latest, write_meta
from ..config import CommonConfig, ConfigError
from ..events import EventWriter, is_secondary_process
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..rewards import RewardFunction
from ..sandbox import DEFAULT_CLI, SandboxRunner, code_block
from .common import lora_for, trainer_arguments

JOB = "adversarial"
# How a test is written: one assertion per line, judged by the sandbox's oracle (prompts/code/stages.json).
ASSERTION_FORM = "`assert FN(...) == expected` (or `with pytest.raises(SomeError): FN(...)`)"
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


def load_problems(path: str) -> list[dict[str, str]]:
    """Problems as {spec, function_name, reference}; HumanEval rows are converted."""
    opener = gzip.open if path.endswith(".gz") else open
    problems = []
    with opener(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if "canonical_solution" in row:
                problems.append({"spec": row["prompt"], "function_name": row["entry_point"], "reference": row["prompt"] + row["canonical_solution"]})
            elif {"spec", "function_name", "reference"} <= set(row):
                problems.append({k: row[k] for k in ("spec", "function_name", "reference")})
            else:
                raise ValueError(f"{path} line {i}: needs prompt/entry_point/canonical_solution or spec/function_name/reference.")
    if not problems:
        raise ValueError(f"{path} holds no problems.")
    return problems


def fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template


class Arena:
    """The state both roles share: problems, stage outputs, the latest code and the accumulated suite.

    Prompts are conversations as the extension builds them (prompts/code/stages.json): the opening,
    then one exchange per stage (its generator task and the generator's answer), then the task of
    the role being trained. Stages are trained in order (1 → 5), so when stage s trains, the answers
    of stages 1..s−1 are the generator's last answers there and stay as they are: the chain before
    the stage is frozen context. The stage-s test writer sees that chain and stage s's own answer
    (at stage 5, the code).
    """

    def __init__(self, problems: list[dict[str, str]], stages: dict[int, dict[str, Any]], sandbox: SandboxRunner, opening: str) -> None:
        self.problems, self.stages, self.sandbox, self.opening = problems, stages, sandbox, opening
        self.latest_code = ["" for _ in problems]
        self.outputs: list[dict[int, str]] = [{} for _ in problems]  # per problem: the generator's latest answer at each stage
        self.suite: list[list[str]] = [[] for _ in problems]  # valid test files per problem
        self.generator_rewards: list[float] = []
        self.validities: list[float] = []

    def _values(self, p: dict[str, str], stage: int) -> dict[str, str]:
        s = self.stages[stage]
        return {
            "spec": p["spec"],
            "language": "Python",
            "framework": "pytest",
            "assertion_form": ASSERTION_FORM.replace("FN", p["function_name"]),
            "function_name": p["function_name"],
            "focus": s["testFocus"],
            "test_budget": str(s.get("testBudget", 3)),
        }

    def _task(self, i: int, stage: int, role: str) -> str:
        return fill(self.stages[stage][role], **self._values(self.problems[i], stage))

    def _conversation(self, i: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
        """Messages from (role, text) turns; the first user message opens with the function and its specification."""
        opening = fill(self.opening, **self._values(self.problems[i], 1))
        messages = [{"role": role, "content": text} for role, text in turns]
        messages[0]["content"] = f"{opening}\n\n{messages[0]['content']}"
        return messages

    def _chain(self, i: int, stage: int) -> list[tuple[str, str]]:
        """The exchanges of the stages before ``stage`` that have an answer, in stage order."""
        return [turn for s in sorted(self.outputs[i]) if s < stage for turn in self._answered(i, s, self.outputs[i][s])]

    def generator_messages(self, i: int, stage: int) -> list[dict[str, str]]:
        return self._conversation(i, [*self._chain(i, stage), ("user", self._task(i, stage, "generatorTask"))])

    def _answered(self, i: int, stage: int, reasoning: str) -> list[tuple[str, str]]:
        """A stage's exchange: its generator task and the reasoning written for it."""
        return [("user", self._task(i, stage, "generatorTask")), ("assistant", reasoning)]

    def test_writer_messages(self, i: int, stage: int) -> list[dict[str, str]]:
        task = ("user", self._task(i, stage, "testWriterTask"))
        current = self.outputs[i].get(stage)
        return self._conversation(i, [*self._chain(i, stage), *(self._answered(i, stage, current) if current else []), task])

    def code_messages(self, i: int, stage: int, reasoning: str) -> list[dict[str, str]]:
        """A stage's reasoning carried on to stage 5's code, as the next message of its conversation."""
        return self._conversation(i, [*self._chain(i, stage), *self._answered(i, stage, reasoning), ("user", self._task(i, 5, "generatorTask"))])

    def suite_pass_rate(self, i: int, code: str) -> tuple[int, int]:
        passed = total = 0
        for tests in self.suite[i]:
            result = self.sandbox.run(code, tests, self.problems[i]["function_name"])
            passed, total = passed + result.passed, total + result.total
        return passed, total


def _dataset(arena: Arena, stage: int, role: str) -> Any:
    from datasets import Dataset

    make = arena.generator_messages if role == "generator" else arena.test_writer_messages
    return Dataset.from_list([{"prompt": make(i, stage), "problem_index": i} for i in range(len(arena.problems))])


def _greedy(model: Any, tokenizer: Any, messages: list[dict[str, str]], max_new_tokens: int) -> str:
    import torch

    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(text, return_tensors="pt").to(model.device)
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    return tokenizer.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)


def _text(completion: Any) -> str:
    return completion[-1]["content"] if isinstance(completion, list) else str(completion)


def make_rewards(arena: Arena, stage: int, generator: Any, tokenizer: Any, max_new_tokens: int):
    def generator_code_reward(prompts: list, completions: list, problem_index: list[int], **_: Any) -> list[float]:
        rewards = []
        for i, completion in zip(problem_index, completions, strict=True):
            reply = _text(completion)
            arena.outputs[i][stage] = reply
            if stage < 5:  # carry this stage's reasoning to code without gradients
                reply = _greedy(generator, tokenizer, arena.code_messages(i, stage, reply), max_new_tokens)
            code = code_block(reply)
            arena.latest_code[i] = code
            passed, total = arena.suite_pass_rate(i, code)
            rewards.append(generator_reward(passed, total))
        arena.generator_rewards.extend(rewards)
        return rewards

    def test_writer_reward_fn(prompts: list, completions: list, problem_index: list[int], **_: Any) -> list[float]:
        rewards = []
        for i, completion in zip(problem_index, completions, strict=True):
            tests = code_block(_text(completion))
            name = arena.problems[i]["function_name"]
            on_reference = arena.sandbox.run(arena.problems[i]["reference"], tests, name)
            if on_reference.total == 0:
                rewards.append(0.0)
                arena.validities.append(0.0)
                continue
            validity = on_reference.pass_rate
            on_generated = arena.sandbox.run(arena.latest_code[i], tests, name)
            rewards.append(test_writer_reward(on_generated.pass_rate, validity, on_reference.total))
            arena.validities.append(validity)
            if validity == 1.0:
                arena.suite[i].append(tests)
        return rewards

    return generator_code_reward, test_writer_reward_fn


def answer_the_stage(arena: Arena, stage: int, generator: Any, tokenizer: Any, max_new_tokens: int) -> None:
    """A stage opens with its test writer, before the generator has answered it: the current
    generator's greedy answer (and, from it, code) fills in, so the test writer sees the stage's
    reasoning and attacks real code rather than an empty function."""
    for i in range(len(arena.problems)):
        if stage not in arena.outputs[i]:
            arena.outputs[i][stage] = _greedy(generator, tokenizer, arena.generator_messages(i, stage), max_new_tokens)
        if not arena.latest_code[i]:
            reply = arena.outputs[i][stage]
            if stage < 5:
                reply = _greedy(generator, tokenizer, arena.code_messages(i, stage, reply), max_new_tokens)
            arena.latest_code[i] = code_block(reply)


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
    best_path = checkpoints_dir(cfg.output_dir) / checkpoint_name(best["step"])
    metrics = {
        "best_score": best["score"],
        "best_step": float(best["step"]),
        "generator_reward": gen_reward,
        "test_validity": validity,
        "sandbox_runs": float(arena.sandbox.calls),
        "sandbox_timeouts": float(arena.sandbox.timeouts),
    }
    events.done(str(best_path / "generator"), metrics)
    return metrics
