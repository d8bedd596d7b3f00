"""The local verifier of the GRPO reward reads its grade as a probability, not as parsed text."""

import pytest
import torch
from stepwise_trainer.verifiers import SCORE_CHOICES, choice_distribution, local_verifier, read_score


@pytest.fixture(scope="module")
def tiny(tiny_base):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return AutoModelForCausalLM.from_pretrained(tiny_base).eval(), AutoTokenizer.from_pretrained(tiny_base)


def test_choice_distribution_is_each_choice_teacher_forced_alone(tiny):
    """Scoring the choices from one pass over the prefix (its cache copied per choice) gives the same
    probabilities as running prefix and choice through the model for each choice on its own."""
    model, tok = tiny
    prefix = tok("Grade: \\boxed{")["input_ids"]
    choices = [tok(c + "}", add_special_tokens=False)["input_ids"] for c in SCORE_CHOICES]
    assert len({len(c) for c in choices}) > 1, "the choices should differ in length, or continuing from the cache is not exercised"
    with torch.no_grad():
        batched = choice_distribution(model, prefix, choices)
        alone = []
        for c in choices:
            logp = model(input_ids=torch.tensor([prefix + c])).logits.float().log_softmax(-1)[0]
            alone.append(sum(logp[len(prefix) - 1 + j, t].item() for j, t in enumerate(c)))
    expected = torch.tensor(alone).softmax(0).tolist()
    assert batched == pytest.approx(expected, abs=1e-5)
    assert sum(batched) == pytest.approx(1.0)


def test_local_verifier_gives_the_expected_grade_where_parsing_gives_nothing(tiny):
    """A random model never writes a readable box: parsing its text scores 0, while the expected grade
    under its probabilities of 0, 0.5 and 1 lies strictly between the extremes."""
    model, tok = tiny
    verify = local_verifier(model, tok, max_new_tokens=8)
    out = model.generate(**tok("Grade it.", return_tensors="pt"), max_new_tokens=8, do_sample=False, pad_token_id=tok.pad_token_id)
    assert read_score(tok.decode(out[0])) == 0.0
    grade = verify("Prove that 1 = 1.", "Both sides are the same number.")
    assert 0.0 < grade < 1.0
    assert verify("Prove that 1 = 1.", "Both sides are the same number.") == pytest.approx(grade), "greedy analysis: the same grade twice"


def test_batched_grades_equal_grades_one_at_a_time(tiny):
    """GRPO grades a step's completions together; proofs of different lengths are left-padded, and each
    must get the grade it gets alone, or the batch size would change the reward."""
    model, tok = tiny
    pairs = [
        ("Prove that 1 = 1.", "Both sides are the same number."),
        ("Show 2 + 2 = 4.", "Add two and two, counting on: three, four. So it is four."),
        ("x", "y"),
    ]
    verify = local_verifier(model, tok, max_new_tokens=8, batch_size=2)
    alone = [verify(problem, proof) for problem, proof in pairs]
    assert verify.batch(pairs) == pytest.approx(alone, abs=1e-5)
    assert len(set(round(g, 6) for g in alone)) == 3, "the proofs should get different grades, or the order is not checked"
