"""grpo as the self-verification design has it: a KL coefficient apart from the reward weight β, the
design's group size and problems per step unless a preset cuts them, a verifier that is not the
policy, and R_meta from the product's meta-verifier prompt with its cost in the log."""

import io
import json

import pytest
import torch
from conftest import TINY_GRPO, flags, run_job
from stepwise_trainer.config import ConfigError, load_config
from stepwise_trainer.events import EventWriter
from stepwise_trainer.jobs import grpo
from stepwise_trainer.judges import build_judges
from stepwise_trainer.prompts import meta_verifier_prompt, verifier_prompt
from stepwise_trainer.rewards import ALPHA, BETA, make_self_verification_reward


@pytest.fixture
def problems(tmp_path):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps({"problem": f"Prove that {i} + 0 = {i}."}) for i in range(4)) + "\n")
    return data


def test_the_kl_coefficient_and_the_reward_weight_beta_are_separate_options(problems):
    cfg = load_config(grpo.GrpoConfig, ["--data", str(problems), "--alpha", "0.7", "--beta", "0.3", "--kl-coef", "0.01"])
    assert (cfg.alpha, cfg.beta, cfg.kl_coef) == (0.7, 0.3, 0.01)
    assert load_config(grpo.GrpoConfig, ["--data", str(problems)]).kl_coef == grpo.KL_COEF > 0
    with pytest.raises(ConfigError, match="kl_coef"):
        grpo.GrpoConfig(data=str(problems), kl_coef=-1)


def test_defaults_are_the_designs_group_size_and_problems_per_step_and_a_preset_cuts_them(problems):
    cfg = load_config(grpo.GrpoConfig, ["--data", str(problems)])
    assert (cfg.num_generations, cfg.problems_per_step) == (4, 8)
    # 8 problems × 4 completions = 32 per update, --batch-size 4 at a time.
    assert cfg.gradient_accumulation_steps * cfg.batch_size == 32
    small = load_config(grpo.GrpoConfig, ["--data", str(problems), "--preset", "small-machine"])
    assert small.num_generations * small.problems_per_step < 32
    # A preset never overrides what the command line says, even a value equal to the default.
    kept = load_config(grpo.GrpoConfig, ["--data", str(problems), "--preset", "small-machine", "--num-generations", "4"])
    assert kept.num_generations == 4 and kept.problems_per_step == small.problems_per_step
    code, events, _ = run_job("grpo", "--data", str(problems), "--preset", "big")
    assert code == 2 and "small-machine" in events[-1]["message"]


def test_the_policy_is_not_its_own_verifier_unless_asked(problems):
    code, events, _ = run_job("grpo", "--data", str(problems), "--verifier", "self")
    assert code == 2 and "--allow-self-verifier" in events[-1]["message"]
    assert grpo.GrpoConfig(data=str(problems)).verifier == "frozen"
    assert grpo.GrpoConfig(data=str(problems), verifier="self", allow_self_verifier=True).verifier == "self"


def _formatted(self_score: str) -> str:
    return (
        "## Solution\nAdding zero leaves a number unchanged, so 3 + 0 = 3.\n## Self Evaluation\n"
        "Here is my evaluation of the solution: step 1 uses the additive identity, which is an axiom.\n"
        f"Based on my evaluation, the final overall score should be: \\boxed{{{self_score}}}"
    )


def test_the_reward_multiplies_r_score_by_the_meta_verifiers_grade_and_counts_its_cost(tiny_base):
    """On the tiny model, the real judges: R = α·R_Y + β·R_score·R_meta with R_meta the meta-verifier's
    expected grade on the product's meta-verifier prompt; a completion without the format is not judged."""
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    policy, tokenizer = load_causal_lm(str(tiny_base), torch.float32), load_tokenizer(str(tiny_base))
    judges = build_judges("frozen", base_model=str(tiny_base), policy=policy, policy_tokenizer=tokenizer, device="cpu", dtype=torch.float32, max_new_tokens=6)
    assert judges.verifier.model is not policy, "the frozen verifier is a copy, not the policy being trained"
    assert not any(p.requires_grad for p in judges.verifier.model.parameters())
    problem = "Prove that 3 + 0 = 3."
    completions = [_formatted("1"), _formatted("0.5"), "no format at all"]
    with_meta = make_self_verification_reward(judges.verifier, judges.meta_verifier)(["p"] * 3, completions, problem=[problem] * 3)
    proof = "Adding zero leaves a number unchanged, so 3 + 0 = 3."
    analysis = "Here is my evaluation of the solution: step 1 uses the additive identity, which is an axiom.\n" + _formatted("1").split("axiom.\n")[1]
    r_y = judges.verifier(problem, proof)
    r_meta = judges.meta_verifier(problem, proof, analysis)
    assert 0 < r_meta < 1 and r_meta != pytest.approx(r_y, abs=1e-4), "the meta question must be asked, not the verifier's"
    assert with_meta[0] == pytest.approx(ALPHA * r_y + BETA * (1 - abs(1 - r_y)) * r_meta, abs=1e-4)
    assert with_meta[2] == 0.0
    cost = judges.meta_verifier.cost.take("meta_verify")
    assert cost["meta_verify/calls"] == 3 and cost["meta_verify/generated_tokens"] > 0 and cost["meta_verify/seconds"] > 0
    off = build_judges("frozen", base_model=str(tiny_base), policy=policy, policy_tokenizer=tokenizer, device="cpu", dtype=torch.float32, meta_verify=False)
    assert off.meta_verifier is None


def test_the_judges_ask_the_products_prompts():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "prompts" / "prove"
    for text, template in ((verifier_prompt("P?", "Q."), "verifier.md"), (meta_verifier_prompt("P?", "Q.", "A."), "meta-verifier.md")):
        body = (root / template).read_text().split("---\n", 2)[2]
        assert body.splitlines()[0] in text and "{{" not in text and "P?" in text and "Q." in text


def test_grpo_logs_its_verifier_kl_and_judging_cost(tmp_path, tiny_base, problems):
    out = tmp_path / "run"
    code, events, stderr = run_job(
        "grpo",
        *flags(base_model=tiny_base, data=problems, output_dir=out, max_steps=1, save_steps=1, kl_coef=0.1, verifier="self", **TINY_GRPO),
        "--allow-self-verifier",
    )
    assert code == 0, stderr[-3000:]
    messages = [e.get("message", "") for e in events if e["type"] == "progress"]
    assert any(m.startswith("warning: the policy is its own verifier") for m in messages), messages[:4]
    assert any("KL coefficient 0.1" in m and "meta-verification on" in m for m in messages)
    logged = {k for e in events if e["type"] == "metric" for k in e["data"]}
    assert "kl" in logged, "TRL logs the KL term only when its beta is not 0"
    assert {"verify/seconds", "meta_verify/generated_tokens"} <= logged
    assert "train/meta_verify/calls" in events[-1]["metrics"]


def test_grpo_run_in_python_logs_no_kl_when_it_is_off(tmp_path, tiny_base, problems):
    cfg = grpo.GrpoConfig(base_model=str(tiny_base), data=str(problems), output_dir=str(tmp_path / "run"), max_steps=1, save_steps=1, kl_coef=0.0, **TINY_GRPO)
    out = io.StringIO()
    grpo.run(cfg, EventWriter("grpo", stream=out))
    logged = {k for line in out.getvalue().splitlines() for k in json.loads(line).get("data", {})}
    assert "kl" not in logged and "reward" in logged


def test_a_recorded_before_measurement_stands_only_for_the_same_problems_and_samples(tmp_path):
    """--held-out-before reads an earlier run's record instead of sampling again (a resumed run's
    starting point); a record of other problems, another order or another sample count is refused."""
    rows = [{"problem": p, "completion": "c", "reward": r, "format": f} for p, r, f in (("a", 0.5, 1), ("a", 0.0, 0), ("b", 1.0, 1), ("b", 0.5, 1))]
    path = tmp_path / "earlier" / "held-out-before.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    copy = tmp_path / "run" / "held-out-before.jsonl"
    figures = grpo.recorded_held_out(str(path), ["a", "b"], 2, str(copy))
    assert figures == {"heldout_reward": pytest.approx(0.5), "heldout_format_rate": pytest.approx(0.75)}
    assert copy.read_text() == path.read_text()
    assert grpo.recorded_held_out(str(copy), ["a", "b"], 2, str(copy))["heldout_reward"] == pytest.approx(0.5)  # its own folder: no copy
    for problems, per_problem in ((["b", "a"], 2), (["a", "b"], 1), (["a", "b", "c"], 2)):
        with pytest.raises(ValueError, match="does not record"):
            grpo.recorded_held_out(str(path), problems, per_problem, str(copy))
