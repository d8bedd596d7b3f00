"""What a candidate verifier does on scored sums (bench/arith-scored-proofs.py's files), as JSON on stdout.

    python bench/arith-verifier-check.py MODEL EVAL.jsonl TRAIN.jsonl [--judge-tokens 8] [--verdicts 12]
        [--verdict-tokens 64 160]

- grade: the local judge's expected grade (as grpo's verifier reads it, --judge-tokens of analysis)
  on every proof of EVAL.jsonl: AUROC for right against wrong, mean grades, seconds per proof;
- verdicts: --verdicts proofs of TRAIN.jsonl, each answered at temperature 1 under the product's
  verifier prompt at each --verdict-tokens length, and how many of those answers are in the verdict
  format the verifier job rewards (parse_verdict): with none in it, every verdict of a GRPO group
  earns 0 and the verifier job has no gradient.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from stepwise_trainer.algorithms import auroc
from stepwise_trainer.generation import complete_batch
from stepwise_trainer.jobs.verifier import scored_proofs
from stepwise_trainer.models import TRAINED_DTYPE, load_causal_lm, load_tokenizer
from stepwise_trainer.prompts import verifier_prompt
from stepwise_trainer.rewards import parse_verdict
from stepwise_trainer.verifiers import local_verifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("eval", type=Path)
    parser.add_argument("train", type=Path)
    parser.add_argument("--judge-tokens", type=int, default=8)
    parser.add_argument("--verdicts", type=int, default=12)
    parser.add_argument("--verdict-tokens", type=int, nargs="+", default=[64, 160])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch

    tokenizer = load_tokenizer(args.model)
    model = load_causal_lm(args.model, TRAINED_DTYPE).eval()
    rows = scored_proofs(str(args.eval))
    judge = local_verifier(model, tokenizer, max_new_tokens=args.judge_tokens)
    started = time.perf_counter()
    grades = judge.batch([(r["problem"], r["proof"]) for r in rows])
    seconds = time.perf_counter() - started
    labels = [int(r["score"]) for r in rows]
    result: dict[str, object] = {
        "grade": {
            "proofs": len(rows),
            "right": sum(labels),
            "auroc": auroc(grades, labels),
            "mean_grade_right": statistics.fmean(g for g, y in zip(grades, labels, strict=True) if y),
            "mean_grade_wrong": statistics.fmean(g for g, y in zip(grades, labels, strict=True) if not y),
            "seconds_per_proof": seconds / len(rows),
            "judge_tokens": args.judge_tokens,
        }
    }
    asked = scored_proofs(str(args.train))[: args.verdicts]
    texts = [
        tokenizer.apply_chat_template([{"role": "user", "content": verifier_prompt(r["problem"], r["proof"])}], tokenize=False, add_generation_prompt=True)
        for r in asked
    ]
    verdicts = {}
    with torch.no_grad():
        for length in args.verdict_tokens:
            torch.manual_seed(args.seed)
            outs = complete_batch(model, tokenizer, texts, do_sample=True, temperature=1.0, max_new_tokens=length)
            verdicts[str(length)] = {
                "asked": len(outs),
                "in_format": sum(parse_verdict(o) is not None for o in outs),
                "opening_written": sum(o.strip().startswith("Here is my evaluation of the solution:") for o in outs),
                "examples": [o[:300] for o in outs[:3]],
            }
    result["verdicts"] = verdicts
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
