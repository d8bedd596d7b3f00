"""Writes a checkable toy task for short CPU training runs: two-number sums and differences.

    python bench/arith-problems.py OUT_DIR [--train 200] [--held-out 16] [--seed 0]

OUT_DIR/train.jsonl and OUT_DIR/held-out.jsonl hold rows in MATH-500's fields (problem, solution,
answer), so the sft-format job can build format examples from the training rows and the grpo job
can read both. The same seed writes the same files; no problem appears in both files.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def problem_row(a: int, b: int, op: str) -> dict[str, str]:
    value = a + b if op == "+" else a - b
    return {
        "problem": f"Compute {a} {op} {b}.",
        "solution": f"We compute {a} {op} {b} = {value}, so the answer is $\\boxed{{{value}}}$.",
        "answer": str(value),
    }


def draw(rng: random.Random) -> tuple[int, int, str]:
    return rng.randint(10, 99), rng.randint(10, 99), rng.choice("+-")


def write_split(out: Path, n_train: int, n_held_out: int, seed: int) -> None:
    rng = random.Random(seed)
    seen: set[tuple[int, int, str]] = set()
    rows: list[dict[str, str]] = []
    while len(rows) < n_train + n_held_out:
        item = draw(rng)
        if item not in seen:  # distinct problems, so the held-out ones are never trained on
            seen.add(item)
            rows.append(problem_row(*item))
    out.mkdir(parents=True, exist_ok=True)
    for name, part in (("held-out", rows[:n_held_out]), ("train", rows[n_held_out:])):
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in part)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--train", type=int, default=200)
    parser.add_argument("--held-out", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_split(args.out, args.train, args.held_out, args.seed)


if __name__ == "__main__":
    main()
