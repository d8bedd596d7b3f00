"""grpo's wiring trains: with a reward that differs within a group, the policy's weights move.

On the random tiny model every completion fails R_format, so the design's reward is 0 for all of
them, every group advantage is 0 and no weight can change. A test-only extra reward that differs
between completions (their length) gives GRPO something to learn from; the design's reward still
runs beside it.
"""

import io
import json
from pathlib import Path

import pytest
import torch
from conftest import TINY_GRPO
from stepwise_trainer.events import EventWriter
from stepwise_trainer.jobs import grpo
from stepwise_trainer.rewards import completion_text


def completion_length(prompts, completions, **_):
    """Longer is better: random completions of a group almost never tie on character count."""
    return [len(completion_text(c)) / 100 for c in completions]


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def _config(tmp_path: Path, tiny_base: Path, problems: list[str], **options) -> grpo.GrpoConfig:
    """A tiny CPU grpo run over `problems` (written as its --data file), saved under tmp_path/run;
    `options` set the config's other fields and may override TINY_GRPO's."""
    data = tmp_path / "problems.jsonl"
    data.write_text("".join(json.dumps({"problem": p}) + "\n" for p in problems))
    return grpo.GrpoConfig(base_model=str(tiny_base), data=str(data), output_dir=str(tmp_path / "run"), **{**TINY_GRPO, "device": "cpu", **options})


def _train(cfg: grpo.GrpoConfig) -> list[dict]:
    """Trains with the length reward beside the design's, and returns the events the job wrote."""
    out = io.StringIO()
    grpo.run(cfg, EventWriter("grpo", stream=out), extra_rewards=[completion_length])
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _policy(tiny_base: Path):
    """The tiny model's tokenizer and weights, as the held-out figures sample from them."""
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    return load_tokenizer(str(tiny_base)), load_causal_lm(str(tiny_base), torch.float32)


SUMS = [f"Prove that {i} + 0 = {i}." for i in range(4)]


def test_grpo_updates_the_policy_when_rewards_differ_within_a_group(tmp_path, tiny_base):
    events = _train(_config(tmp_path, tiny_base, SUMS, max_steps=2, save_steps=2))

    logged = [e["data"] for e in events if e["type"] == "metric"]
    for name in ("self_verification", "format_reward", "completion_length"):  # the extra reward joins, never replaces
        assert any(f"rewards/{name}/mean" in m for m in logged), (name, logged[:2])
    assert any(m.get("frac_reward_zero_std", 1) < 1 for m in logged), "every group tied: no advantage to learn from"

    before, after = _weights(tiny_base), _weights(Path(events[-1]["output"]))
    changed = [k for k in before if k in after and not torch.equal(before[k], after[k])]
    assert changed, "two GRPO steps with non-zero advantages changed no parameter"


def test_the_trained_reward_is_the_design_reward_not_plus_the_format_reward(tmp_path, tiny_base, monkeypatch):
    """R = R_format·(α·R_Y + β·R_Z) already holds R_format; format_reward runs beside it for the log
    only. With it forced to 1 for every completion, the reward GRPO trains on must not rise by 1."""
    monkeypatch.setattr(grpo, "format_reward", lambda prompts, completions, **_: [1.0] * len(completions))
    events = _train(_config(tmp_path, tiny_base, SUMS, max_steps=1, save_steps=1))
    logged = [e["data"] for e in events if e["type"] == "metric"]
    step = next(m for m in logged if "reward" in m and "rewards/completion_length/mean" in m)
    assert step["rewards/<lambda>/mean"] == 1.0
    assert step["reward"] == pytest.approx(step["rewards/self_verification/mean"] + step["rewards/completion_length/mean"], abs=1e-4)


def test_held_out_problems_sampled_together_keep_each_completion_with_its_problem(tmp_path, tiny_base):
    """--eval-batch-size samples several held-out problems in one generation; each problem's K completions
    must be graded against that problem. At a near-zero temperature sampling is greedy, so every
    completion must equal its own prompt's greedy completion alone."""
    from stepwise_trainer.generation import complete_batch
    from stepwise_trainer.prompts import generator_prompt

    cfg = _config(tmp_path, tiny_base, ["Prove that 0 = 0."], max_completion_length=6, temperature=1e-6, eval_batch_size=2)
    tokenizer, model = _policy(tiny_base)
    problems = ["Prove that 1 = 1.", "Let x be a real number with x^2 = 4 and x > 0. Find x.", "Compute 3 * 7."]
    seen: list[tuple[str, str]] = []

    def recording(prompts, completions, problem, **_):
        seen.extend(zip(problem, [completion_text(c) for c in completions], strict=True))
        return [0.5] * len(completions)

    record = tmp_path / "held-out-before.jsonl"
    figures = grpo.held_out_reward(model, tokenizer, problems, cfg, recording, lambda i: None, str(record))
    assert figures == {"heldout_reward": 0.5, "heldout_format_rate": 0.0}
    # The record keeps every completion with its problem and reward: a paired before/after comparison
    # and an accuracy check against reference answers are read from it.
    kept = [json.loads(line) for line in record.read_text().splitlines()]
    assert [(k["problem"], k["completion"], k["reward"], k["format"]) for k in kept] == [(p, t, 0.5, 0.0) for p, t in seen]
    greedy = {
        p: complete_batch(
            model,
            tokenizer,
            [tokenizer.apply_chat_template([{"role": "user", "content": generator_prompt(p)}], tokenize=False, add_generation_prompt=True)],
            max_new_tokens=6,
            do_sample=False,
        )[0]
        for p in problems
    }
    assert [p for p, _ in seen] == [p for p in problems for _ in range(cfg.num_generations)]
    assert all(text == greedy[p] for p, text in seen), seen


def test_eval_generations_sets_the_held_out_samples_per_problem_apart_from_k(tmp_path, tiny_base):
    """--eval-generations trades samples per held-out problem for problems; training's K stays."""
    cfg = _config(tmp_path, tiny_base, ["Prove that 0 = 0."], max_completion_length=4, eval_generations=3, eval_batch_size=2)
    assert cfg.num_generations != 3
    tokenizer, model = _policy(tiny_base)
    problems = ["Prove that 1 = 1.", "Compute 3 * 7.", "Compute 2 + 2."]
    record = tmp_path / "held-out.jsonl"
    grpo.held_out_reward(model, tokenizer, problems, cfg, lambda prompts, completions, **_: [0.0] * len(completions), lambda i: None, str(record))
    kept = [json.loads(line)["problem"] for line in record.read_text().splitlines()]
    assert kept == [p for p in problems for _ in range(3)]
    with pytest.raises(grpo.ConfigError):
        grpo.GrpoConfig(base_model=str(tiny_base), data=cfg.data, output_dir=str(tmp_path / "r"), eval_generations=-1, device="cpu")
