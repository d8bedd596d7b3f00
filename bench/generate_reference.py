"""Reference timings for bench/generate.ts: the same prompt tokens and number of new tokens,
run by llama.cpp (llama-cpp-python) or PyTorch transformers on CPU, from the same GGUF weights.

Usage: python bench/generate_reference.py --engine llamacpp|torch --gguf FILE --request JSON_FILE
The request holds {"prompt_ids": [...], "new_tokens": 64, "threads": 2, "repeats": 3, "n": 1}.
Prints one JSON object on stdout and nothing else (logs go to stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_llamacpp(gguf: Path, prompt_ids: list[int], new_tokens: int, threads: int, n: int) -> tuple[float, list[dict]]:
    if n != 1:
        raise SystemExit("llama.cpp reference runs n=1 only")
    from llama_cpp import Llama

    started = time.perf_counter()
    llm = Llama(model_path=str(gguf), n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False)
    load_s = time.perf_counter() - started

    def once() -> dict:
        # Forget the previous run's tokens, or llama.cpp would reuse the cached prompt prefix.
        llm.reset()
        t0 = time.perf_counter()
        first = None
        count = 0
        # generate() never stops on EOS by itself, so every run yields exactly new_tokens tokens.
        for _token in llm.generate(prompt_ids, temp=0.0, top_k=1, reset=True):
            count += 1
            if first is None:
                first = time.perf_counter()
            if count >= new_tokens:
                break
        end = time.perf_counter()
        return {"ttft_ms": (first - t0) * 1000, "decode_s": end - first, "tokens": count}

    return load_s, [once() for _ in range(REPEATS + 1)][1:]


def run_torch(gguf: Path, prompt_ids: list[int], new_tokens: int, threads: int, n: int) -> tuple[float, list[dict]]:
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(threads)
    started = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    model.eval()
    load_s = time.perf_counter() - started
    generator = torch.Generator().manual_seed(0)

    def pick(logits: torch.Tensor) -> torch.Tensor:
        if n == 1:
            return logits.argmax(-1, keepdim=True)
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)

    def once() -> dict:
        ids = torch.tensor([prompt_ids] * n, dtype=torch.long)
        with torch.inference_mode():
            t0 = time.perf_counter()
            out = model(input_ids=ids, use_cache=True)
            token = pick(out.logits[:, -1, :])
            first = time.perf_counter()
            past = out.past_key_values
            for _ in range(new_tokens - 1):
                out = model(input_ids=token, past_key_values=past, use_cache=True)
                past = out.past_key_values
                token = pick(out.logits[:, -1, :])
            end = time.perf_counter()
        return {"ttft_ms": (first - t0) * 1000, "decode_s": end - first, "tokens": new_tokens}

    return load_s, [once() for _ in range(REPEATS + 1)][1:]


REPEATS = 3


def main() -> None:
    global REPEATS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", choices=["llamacpp", "torch"], required=True)
    parser.add_argument("--gguf", required=True, help="the GGUF weights file")
    parser.add_argument("--request", required=True, help="JSON file with prompt_ids, new_tokens, threads, repeats, n")
    args = parser.parse_args()
    request = json.loads(Path(args.request).read_text())
    REPEATS = int(request.get("repeats", 3))
    n = int(request.get("n", 1))
    threads = int(request["threads"])
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    runner = run_llamacpp if args.engine == "llamacpp" else run_torch
    load_s, runs = runner(Path(args.gguf), request["prompt_ids"], int(request["new_tokens"]), threads, n)
    decode_rates = [n * (r["tokens"] - 1) / r["decode_s"] for r in runs]
    result = {
        "engine": args.engine,
        "n": n,
        "load_s": round(load_s, 3),
        "ttft_ms": round(statistics.median(r["ttft_ms"] for r in runs), 1),
        "decode_tokens_per_s": round(statistics.median(decode_rates), 1),
        "runs": len(runs),
        "peak_rss_mib": round(peak_rss_mib(), 1),
    }
    if args.engine == "torch":
        import torch
        import transformers

        result["versions"] = {"torch": torch.__version__, "transformers": transformers.__version__}
    else:
        import llama_cpp

        result["versions"] = {"llama_cpp_python": llama_cpp.__version__}
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
