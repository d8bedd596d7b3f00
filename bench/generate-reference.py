"""llama.cpp's side of bench/generate.ts (llama-cpp-python), on the same GGUF and token ids.

Usage: python bench/generate-reference.py speed|agree --gguf FILE --request JSON_FILE
  speed  {"prompt_ids", "long_ids", "new_tokens", "threads", "repeats"}: median decode tokens/s on
         prompt_ids (EOS not stopping it), median time to first token on long_ids, peak RSS.
  agree  {"prompts", "new_tokens", "threads", "logits_dir"}: greedy continuations (stopping at EOS)
         and, for each prompt, the logits after every prefix of its continuation, written to
         logits_dir/<i>.f32 (float32, [continuation length, vocab]).
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


def load(gguf: Path, threads: int, logits_all: bool = False):
    from llama_cpp import Llama

    return Llama(
        model_path=str(gguf),
        n_ctx=2048,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=logits_all,
        verbose=False,
    )


def speed(gguf: Path, request: dict) -> dict:
    started = time.perf_counter()
    llm = load(gguf, int(request["threads"]))
    load_s = time.perf_counter() - started

    def decode() -> float:
        # Forget the previous run, or llama.cpp would reuse the cached prompt.
        llm.reset()
        count = 0
        first = end = 0.0
        # generate() never stops on EOS by itself: every run makes new_tokens tokens.
        for _token in llm.generate(request["prompt_ids"], temp=0.0, top_k=1, reset=True):
            count += 1
            if count == 1:
                first = time.perf_counter()
            if count >= request["new_tokens"]:
                end = time.perf_counter()
                break
        return (count - 1) / (end - first)

    def first_token() -> float:
        llm.reset()
        t0 = time.perf_counter()
        for _token in llm.generate(request["long_ids"], temp=0.0, top_k=1, reset=True):
            return (time.perf_counter() - t0) * 1000
        raise RuntimeError("no token")

    decode()
    first_token()
    rates, ttft = [], []
    for _ in range(int(request["repeats"])):
        rates.append(decode())
        ttft.append(first_token())
    return {
        "load_s": load_s,
        "ttft_ms": statistics.median(ttft),
        "decode_tokens_per_s": statistics.median(rates),
        "runs": len(rates),
        "peak_rss_mib": peak_rss_mib(),
    }


def agree(gguf: Path, request: dict) -> dict:
    import numpy as np

    llm = load(gguf, int(request["threads"]), logits_all=True)
    out_dir = Path(request["logits_dir"])
    out_dir.mkdir(parents=True, exist_ok=True)
    continuations = []
    self_same = self_positions = 0
    for i, prompt in enumerate(request["prompts"]):
        llm.reset()
        tokens: list[int] = []
        for token in llm.generate(prompt, temp=0.0, top_k=1, reset=True):
            tokens.append(token)
            if llm.token_eos() == token or token in eog_tokens(llm) or len(tokens) >= request["new_tokens"]:
                break
        continuations.append(tokens)
        llm.reset()
        llm.eval(prompt + tokens)
        scores = np.asarray(llm.scores[len(prompt) - 1 : len(prompt) - 1 + len(tokens)], dtype=np.float32)
        scores.tofile(out_dir / f"{i}.f32")
        # llama.cpp against itself: its batched evaluation of the sequence vs the tokens it chose
        # one at a time. Where these differ, no other engine can match both.
        self_same += int((scores.argmax(axis=1) == np.asarray(tokens)).sum())
        self_positions += len(tokens)
    return {
        "continuations": continuations,
        "vocab": int(llm.n_vocab()),
        "self_top1": self_same / max(self_positions, 1),
        "peak_rss_mib": peak_rss_mib(),
    }


def eog_tokens(llm) -> set[int]:
    """End-of-generation tokens as llama.cpp marks them (EOS, EOT, <|im_end|>, <|endoftext|>...)."""
    if not hasattr(llm, "_eog"):
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        llm._eog = {t for t in range(llm.n_vocab()) if llama_cpp.llama_vocab_is_eog(vocab, t)}
    return llm._eog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["speed", "agree"])
    parser.add_argument("--gguf", required=True, help="the GGUF weights file")
    parser.add_argument("--request", required=True, help="JSON request file")
    args = parser.parse_args()
    request = json.loads(Path(args.request).read_text())
    os.environ.setdefault("OMP_NUM_THREADS", str(request["threads"]))
    result = speed(Path(args.gguf), request) if args.mode == "speed" else agree(Path(args.gguf), request)
    import llama_cpp

    result["versions"] = {"llama_cpp_python": llama_cpp.__version__}
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
