import json
import re
from pathlib import Path

import pytest
from conftest import REPO, flags, run_job

MATH = REPO.parent / "shared" / "data" / "MATH-500.jsonl"


@pytest.mark.skipif(not MATH.exists(), reason="MATH-500 is not at ../shared/data")
def test_sft_format_runs_a_few_steps_and_reports_format_rates(tmp_path, tiny_base):
    out = tmp_path / "run"
    code, events, stderr = run_job(
        "sft-format",
        *flags(
            base_model=tiny_base,
            math_data=MATH,
            output_dir=out,
            examples=16,
            eval_problems=2,
            eval_max_new_tokens=8,
            max_steps=3,
            save_steps=3,
            batch_size=2,
            max_length=1024,
            learning_rate=1e-3,
        ),
    )
    assert code == 0, stderr[-3000:]
    done = events[-1]
    assert done["type"] == "done"
    for when in ("before", "after"):
        assert 0 <= done["metrics"][f"{when}/format_rate"] <= 1 and 0 <= done["metrics"][f"{when}/answer_accuracy"] <= 1
    assert done["metrics"]["examples"] == 16
    assert (Path(done["output"]) / "config.json").exists()
    # Each held-out output is kept with its verdicts, so a low rate can be traced to its outputs.
    for when in ("before", "after"):
        kept = [json.loads(line) for line in (out / f"held-out-{when}.jsonl").read_text().splitlines()]
        assert len(kept) == 2 and all({"problem", "output", "format", "right", "self_score"} <= set(k) for k in kept)
        assert sum(k["format"] for k in kept) / 2 == done["metrics"][f"{when}/format_rate"]
    # Generation for the format check is the slow part on a CPU; the editor shows which problem it is on.
    messages = [e.get("message", "") for e in events if e["type"] == "progress"]
    assert "format check before training: problem 2 of 2" in messages
    assert "format check after training: problem 2 of 2" in messages


def test_examples_teach_format_and_honest_scores():
    from stepwise_trainer.jobs.sft_format import build_examples
    from stepwise_trainer.rewards import parse_proof_output

    rows = [{"problem": f"What is {i}+1?", "solution": f"We add: $\\boxed{{{i + 1}}}$.", "answer": str(i + 1)} for i in range(6)]
    examples = build_examples(rows, 4, seed=0)
    parsed = [parse_proof_output(e["completion"][0]["content"]) for e in examples]
    assert all(p.format_reward == 1 for p in parsed)
    assert sorted(p.self_score for p in parsed) == [0.0, 0.0, 1.0, 1.0]
    # Each Solution closes with the answer it boxes, as the prompt asks: the reference for the
    # honest-correct examples, the altered one for the honest-wrong ones.
    for p in parsed:
        last = p.proof.strip().splitlines()[-1]
        boxed = re.search(r"\\boxed\{(.*)\}", p.proof.split("Final answer:")[0]).group(1)
        assert last == f"Final answer: $\\boxed{{{boxed}}}$"


def test_an_altered_answer_is_never_a_training_target():
    """An honest-wrong example teaches the evaluation that catches the altered answer, not the altered
    answer itself: its Solution is prompt, and only the Self Evaluation is completion (the loss)."""
    from stepwise_trainer.jobs.sft_format import build_examples, training_text
    from stepwise_trainer.models import load_tokenizer

    tokenizer = load_tokenizer("smollm2")
    rows = [{"problem": f"What is {i}+1?", "solution": f"We add: $\\boxed{{{i + 1}}}$.", "answer": str(i + 1)} for i in range(4)]
    examples = build_examples(rows, 4, seed=0)
    texts = [training_text(tokenizer, ex) for ex in examples]
    for ex, text in zip(examples, texts, strict=True):
        generation_prompt = tokenizer.apply_chat_template(ex["prompt"], tokenize=False, add_generation_prompt=True)
        answer = text["completion"] if ex["correct"] else text["prompt"]
        boxed = re.search(r"\\boxed\{(\d+)\}", answer).group(1)
        assert text["prompt"] + text["completion"] == tokenizer.apply_chat_template(ex["prompt"] + ex["completion"], tokenize=False).rstrip("\n")
        assert text["completion"].endswith(tokenizer.eos_token), "the model learns to end its turn"
        if ex["correct"]:
            assert text["prompt"] == generation_prompt
            assert text["completion"].startswith("## Solution")
        else:
            assert text["prompt"].startswith(generation_prompt) and f"\\boxed{{{boxed}}}" in text["prompt"]
            assert text["completion"].startswith("## Self Evaluation") and f"\\boxed{{{boxed}}}" not in text["completion"]
    assert sorted(ex["correct"] for ex in examples) == [False, False, True, True]


def test_examples_longer_than_the_training_length_are_left_out():
    """A truncated example would teach an output that stops before its self-evaluation."""
    from stepwise_trainer.jobs.sft_format import build_examples, token_length
    from stepwise_trainer.models import load_tokenizer

    tokenizer = load_tokenizer("smollm2")
    rows = [{"problem": f"What is {i}+1?", "solution": "We add. " * (1 + 60 * (i % 2)) + f"$\\boxed{{{i + 1}}}$.", "answer": str(i + 1)} for i in range(12)]
    lengths = sorted(token_length(tokenizer, build_examples([r], 1, seed=0)[0]) for r in rows)
    limit = (lengths[5] + lengths[6]) // 2  # between the six short solutions and the six long ones
    kept = build_examples(rows, 12, seed=0, fits=lambda ex: token_length(tokenizer, ex) <= limit)
    assert len(kept) == 6 and sum("no gap" in ex["completion"][0]["content"] for ex in kept) == 3
    assert all("We add. We add." not in ex["completion"][0]["content"] for ex in kept)
    assert all(token_length(tokenizer, ex) <= limit for ex in kept)


def test_batched_greedy_completions_match_one_at_a_time(tiny_base):
    """The held-out check batches prompts of different lengths with left padding; each row must get
    the completion it gets alone, or the batch size would change the reported rates."""
    import torch
    from stepwise_trainer.generation import complete_batch
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    tokenizer = load_tokenizer(str(tiny_base))
    model = load_causal_lm(str(tiny_base), torch.float32)
    prompts = ["Prove that 1 + 1 = 2.", "Let x be a real number with x^2 = 4 and x > 0. Find x, showing each step.", "Compute 3 * 7."]
    alone = [complete_batch(model, tokenizer, [p], max_new_tokens=12, do_sample=False)[0] for p in prompts]
    assert complete_batch(model, tokenizer, prompts, max_new_tokens=12, do_sample=False) == alone
    assert all(alone), "every prompt got a completion"
    assert len({len(tokenizer(p)["input_ids"]) for p in prompts}) == 3, "the batch needs padding, or it tests nothing"
    assert tokenizer.padding_side == load_tokenizer(str(tiny_base)).padding_side, "the tokenizer's padding side is restored"
