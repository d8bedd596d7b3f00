"""The self-verification reward and the proof parser: seed 000's worked scenarios."""

import doctest

import pytest
import stepwise_trainer.algorithms
import stepwise_trainer.generation
import stepwise_trainer.jobs.orm
import stepwise_trainer.jobs.prm
import stepwise_trainer.jobs.question_generator
import stepwise_trainer.jobs.rm_compare
import stepwise_trainer.jobs.sft_format
import stepwise_trainer.jobs.verifier
import stepwise_trainer.rewards
import stepwise_trainer.sandbox
from stepwise_trainer.rewards import format_reward, make_self_verification_reward, parse_proof_output, self_verification_reward


def output(self_score: str, solution: str = "Let n be even, n = 2k, so n^2 = 4k^2.") -> str:
    return (
        f"## Solution\n{solution}\n\n## Self Evaluation\nHere is my evaluation of the solution: step 2 is justified.\n\n"
        f"Based on my evaluation, the final overall score should be: \\boxed{{{self_score}}}"
    )


@pytest.mark.parametrize(
    "module",
    [
        stepwise_trainer.rewards,
        stepwise_trainer.algorithms,
        stepwise_trainer.generation,
        stepwise_trainer.sandbox,
        stepwise_trainer.jobs.sft_format,
        stepwise_trainer.jobs.prm,
        stepwise_trainer.jobs.verifier,
        stepwise_trainer.jobs.orm,
        stepwise_trainer.jobs.rm_compare,
        stepwise_trainer.jobs.question_generator,
    ],
)
def test_doctest_examples_hold(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_good_proof_with_honest_evaluation_gets_the_full_reward():
    assert self_verification_reward(1, verifier_score=1.0, self_score=1.0, meta_score=1.0) == pytest.approx(1.0)


def test_honest_flawed_proof_beats_the_dishonest_one():
    honest = self_verification_reward(1, verifier_score=0.5, self_score=0.5, meta_score=1.0)
    dishonest = self_verification_reward(1, verifier_score=0.5, self_score=1.0, meta_score=1.0)
    assert honest == pytest.approx(0.62) and dishonest == pytest.approx(0.50)
    assert honest > dishonest


def test_wrong_format_earns_nothing_even_with_a_perfect_proof():
    reward = make_self_verification_reward(lambda problem, proof: 1.0)
    assert reward(["Prove it."], ["The proof is obvious. \\boxed{1}"]) == [0.0]
    assert format_reward(["p"], [output("1")]) == [1.0]


def test_a_meta_verifier_that_rejects_the_self_analysis_removes_the_self_evaluation_credit():
    reward = make_self_verification_reward(lambda problem, proof: 0.5, meta_verifier=lambda problem, proof, analysis: 0.0)
    assert reward(["Prove it."], [output("0.5")]) == [pytest.approx(0.38)]


def test_the_reward_keeps_what_its_judges_said_about_each_completion_of_the_last_call():
    """The held-out record reads R_Y and R_meta from here: a grade must sit at its own completion,
    unformatted completions and self-scores the meta-verifier was not asked about say None."""
    grades = iter([0.25, 0.75])
    reward = make_self_verification_reward(lambda problem, proof: next(grades), meta_verifier=lambda problem, proof, analysis: 0.5)
    out = reward(["p"] * 3, [output("1"), "no format", output("0", solution="Another proof.")], problem=["a", "b", "c"])
    assert reward.last_parts == [
        {"format": 1, "r_y": 0.25, "self_score": 1.0, "r_meta": 0.5},
        {"format": 0, "r_y": None, "self_score": None, "r_meta": None},
        {"format": 1, "r_y": 0.75, "self_score": 0.0, "r_meta": 0.5},
    ]
    assert out[1] == 0.0 and out[0] == pytest.approx(0.76 * 0.25 + 0.24 * 0.25 * 0.5)
    again = make_self_verification_reward(lambda problem, proof: 0.0, meta_verifier=lambda problem, proof, analysis: 1.0)
    again(["p"], [output("1")])  # R_score = 1 − |1 − 0| = 0: the meta-verifier is not asked
    assert again.last_parts == [{"format": 1, "r_y": 0.0, "self_score": 1.0, "r_meta": None}]


def test_reward_uses_the_verifier_on_the_solution_section_only():
    seen = []
    reward = make_self_verification_reward(lambda problem, proof: seen.append(proof) or 0.0)
    reward(["Prove it."], [[{"role": "assistant", "content": output("0", solution="The real proof.")}]])
    assert seen == ["The real proof."]


def test_verifier_judges_against_the_problem_column_not_the_generator_prompt():
    """GRPO's prompt wraps the problem in the generator's instructions; TRL passes the dataset's
    `problem` column beside it, and that is what the verifier and meta-verifier must see."""
    seen = []
    reward = make_self_verification_reward(
        lambda problem, proof: seen.append(problem) or 1.0, meta_verifier=lambda problem, proof, analysis: seen.append(problem) or 1.0
    )
    wrapped = [[{"role": "user", "content": "Write a proof in two sections ... Problem: Prove that 2 + 2 = 4."}]]
    reward(wrapped, [output("1")], problem=["Prove that 2 + 2 = 4."])
    assert seen == ["Prove that 2 + 2 = 4.", "Prove that 2 + 2 = 4."]
    seen.clear()
    reward(["Prove it."], [output("1")])  # no problem column: the prompt is all there is
    assert seen == ["Prove it.", "Prove it."]


def test_self_score_comes_only_from_the_self_evaluation_section():
    text = "## Solution\nWe get \\boxed{1}.\n## Self Evaluation\nHere is my evaluation of the solution: a gap.\nBased on my evaluation, the final overall score should be: \\boxed{\\frac{1}{2}}"
    parsed = parse_proof_output(text)
    assert parsed.self_score == 0.5 and parsed.format_reward == 1


@pytest.mark.parametrize(
    "text, problem",
    [
        (
            "## Self Evaluation\nHere is my evaluation of the solution: x\nBased on my evaluation, the final overall score should be: \\boxed{1}\n## Solution\np",
            "before",
        ),
        (output("0.7"), "not one of"),
        (output("1").replace("Here is my evaluation of the solution:", "I think"), "required sentence"),
        ("## Solution\nproof only", "missing '## Self Evaluation'"),
    ],
)
def test_malformed_outputs_get_no_format_reward_and_a_named_problem(text, problem):
    parsed = parse_proof_output(text)
    assert parsed.format_reward == 0
    assert any(problem in p for p in parsed.problems), parsed.problems


@pytest.mark.parametrize("text", ["", None, "\\boxed{", "## Solution\n## Self Evaluation\n\\boxed{{{", "<think>unterminated", "x" * 10000])
def test_parser_never_raises_on_untrusted_output(text):
    parsed = parse_proof_output(text)
    assert parsed.format_reward == 0
