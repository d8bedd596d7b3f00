"""Writes scored proofs for the verifier job from a policy's own samples on training sums.

    python bench/arith-scored-proofs.py MODEL TRAIN.jsonl OUT_DIR [--train-problems 64] [--eval-problems 24]
        [--samples 4] [--seed 0] [--batch-size 8] [--max-new-tokens 64]

Samples --samples solutions per problem at temperature 1 (the distribution GRPO's verifier will
grade) from the first --train-problems + --eval-problems rows of TRAIN.jsonl, each stopped at its
"## Self Evaluation" header (the verifier grades the Solution only). Each row keeps the reference
answer, so the verifier job labels it right (1) or wrong (0) by its last boxed answer.
OUT_DIR/train.jsonl holds the first problems' proofs with the more common label cut down to the
count of the rarer one (a 135M verifier rewarded mostly for "wrong" learns to say "wrong");
OUT_DIR/eval.jsonl holds every proof of the remaining problems, which the verifier never trains on.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from stepwise_trainer.generation import chunks, complete_batch
from stepwise_trainer.jobs.verifier import proof_label
from stepwise_trainer.models import TRAINED_DTYPE, load_causal_lm, load_tokenizer
from stepwise_trainer.prompts import generator_prompt
from stepwise_trainer.rewards import parse_proof_output


def sample(model_dir: str, problems: list[dict], samples: int, batch_size: int, max_new_tokens: int, seed: int) -> list[dict]:
    import torch

    tokenizer = load_tokenizer(model_dir)
    model = load_causal_lm(model_dir, TRAINED_DTYPE).eval()
    torch.manual_seed(seed)
    rows: list[dict] = []
    with torch.no_grad():
        for part in chunks(problems, batch_size):
            texts = [
                tokenizer.apply_chat_template([{"role": "user", "content": generator_prompt(p["problem"])}], tokenize=False, add_generation_prompt=True)
                for p in part
            ]
            outs = complete_batch(
                model,
                tokenizer,
                texts,
                do_sample=True,
                temperature=1.0,
                max_new_tokens=max_new_tokens,
                num_return_sequences=samples,
                stop_strings=["## Self Evaluation"],
            )
            for i, out in enumerate(outs):
                problem = part[i // samples]
                proof = parse_proof_output(out).proof
                if proof:  # no Solution section: GRPO gives it R_format = 0 and never asks the verifier
                    rows.append({"problem": problem["problem"], "proof": proof, "answer": problem["answer"]})
    return rows


def balanced(rows: list[dict], seed: int) -> list[dict]:
    right = [r for r in rows if proof_label(r) == 1.0]
    wrong = [r for r in rows if proof_label(r) == 0.0]
    n = min(len(right), len(wrong))
    rng = random.Random(seed)
    kept = rng.sample(right, n) + rng.sample(wrong, n)
    rng.shuffle(kept)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("train", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--train-problems", type=int, default=64)
    parser.add_argument("--eval-problems", type=int, default=24)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    args = parser.parse_args()
    problems = [json.loads(line) for line in args.train.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = problems[: args.train_problems + args.eval_problems]
    rows = sample(args.model, wanted, args.samples, args.batch_size, args.max_new_tokens, args.seed)
    fit = {p["problem"] for p in wanted[: args.train_problems]}
    train = balanced([r for r in rows if r["problem"] in fit], args.seed)
    held = [r for r in rows if r["problem"] not in fit]
    args.out.mkdir(parents=True, exist_ok=True)
    for name, part in (("train", train), ("eval", held)):
        with open(args.out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in part)
    counts = {
        name: {"proofs": len(part), "right": sum(proof_label(r) == 1.0 for r in part)} for name, part in (("all", rows), ("train", train), ("eval", held))
    }
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
