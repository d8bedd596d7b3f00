"""What a grammar costs per token in llama-cpp-python, the server issue 19's endpoint runs use.

llama-cpp-python (0.3.x) puts the grammar sampler before top-k in its sampler chain, so each new
token is checked against the grammar for every entry of the vocabulary (151,936 for Qwen2.5). The
cost grows with the parse stacks the grammar keeps alive, which an expression grammar has many of.
This times one test-writer request (greedy, 64 tokens, same prompt) under the tests flow's
assertion grammar (src/core/model/openai/assertionGrammar.ts), under a loose line grammar that
only fixes each line's opening, and under none, twice each, interleaved. The cost is per vocabulary
entry, so the model's size hardly matters: the default 0.5B GGUF is enough.

    npx tsc -p tsconfig.json   # the assertion grammar is read from out/
    .venv/bin/python bench/grammar-cost.py --gguf MODEL.gguf [--out bench/results/grammar-cost.json]

Run it with the machine otherwise idle: llama.cpp's worker threads spin, and beside another
engine on 2 cores its figures mean nothing.
"""

import argparse
import json
import os
import platform
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from llama_cpp import Llama, LlamaGrammar

ROOT = Path(__file__).resolve().parent.parent
FUNCTION = "has_close_elements"
PROMPT = (
    "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
    "<|im_start|>user\nWrite Python assert statements that test this function:\n\n"
    "def has_close_elements(numbers: list[float], threshold: float) -> bool:\n"
    '    """True when two of the numbers are closer to each other than the threshold."""\n'
    "Write one assertion per line, nothing else.<|im_end|>\n<|im_start|>assistant\n"
)
LOOSE = f'root ::= (line "\\n"){{1,6}} "\\n"?\nline ::= "assert " ("not ")? "{FUNCTION}(" [^\\n]+\n'


def assertion_grammar() -> str:
    module = ROOT / "out" / "src" / "core" / "model" / "openai" / "assertionGrammar.js"
    if not module.exists():
        raise SystemExit(f"{module} is missing: run `npx tsc -p tsconfig.json` first.")
    script = (
        f"process.stdout.write(require({json.dumps(str(module))}).assertionGrammar({{language: 'python', functionName: {json.dumps(FUNCTION)}, maxLines: 6}}))"
    )
    return subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", required=True, help="a Qwen2.5 GGUF file")
    parser.add_argument("--tokens", type=int, default=64, help="tokens per request")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "grammar-cost.json"))
    args = parser.parse_args()

    grammars = {
        "assertion grammar (shipped)": assertion_grammar(),
        "loose line grammar": LOOSE,
        "none": None,
    }
    llm = Llama(model_path=args.gguf, n_ctx=2048, n_threads=2, verbose=False, seed=0)
    runs: dict[str, list[dict]] = {name: [] for name in grammars}
    load = [os.getloadavg()[0]]
    for _ in range(2):
        for name, text in grammars.items():
            grammar = LlamaGrammar.from_string(text, verbose=False) if text else None
            llm.reset()
            start = time.perf_counter()
            answer = llm.create_completion(
                PROMPT,
                max_tokens=args.tokens,
                temperature=0,
                grammar=grammar,
                stop=None if text else ["\n\n"],
            )
            seconds = time.perf_counter() - start
            tokens = answer["usage"]["completion_tokens"]
            runs[name].append(
                {
                    "seconds": round(seconds, 2),
                    "tokens": tokens,
                    "text": answer["choices"][0]["text"],
                }
            )
            print(name, round(seconds * 1000 / max(tokens, 1), 1), "ms/token", flush=True)
    load.append(os.getloadavg()[0])
    ms = {name: round(min(r["seconds"] * 1000 / max(r["tokens"], 1) for r in rs), 1) for name, rs in runs.items()}
    none = ms["none"]
    result = {
        "benchmark": "grammar-cost",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_1m": load,
        },
        "model": Path(args.gguf).name,
        "engine": "llama-cpp-python " + __import__("llama_cpp").__version__ + ", n_threads 2, greedy",
        "tokens_per_request": args.tokens,
        "ms_per_token": ms,
        "grammar_ms_per_token": {name: round(v - none, 1) for name, v in ms.items() if name != "none"},
        "runs": runs,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
