"""Issue 19's timing run, repeatable: Prove on three MATH-500 problems and `stepwise tests` on three
HumanEval functions, against a capable model served by llama-cpp-python's OpenAI-compatible server.

Before the fixes of issue 19 the same run took 505 s for Prove (``--iterations 2 --no-step-scores``)
and 462 s for the tests (through a proxy that stripped log-probabilities, without which the tests
run did not finish in 10 minutes). Writes bench/results/capable-endpoint.json, with the seconds and
tokens each Prove role wrote (how much of the time is decoding no client change can save).

    .venv/bin/python bench/capable-endpoint.py --gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --tokenizer DIR [--data ../shared/data] [--port 8093] [--assertion-grammar auto|expressions|lines]

--tokenizer is a folder with the model's tokenizer_config.json (its chat template): llama-cpp-python's
server does not expose the template, so the CLI needs it to build prompts for the completions endpoint.
"""

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = {"prove_s": 505, "tests_s": 462}


def wait_for_server(url: str, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/models", timeout=5):
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"the llama.cpp server at {url} did not answer within {timeout_s:.0f} s")


def proof_documents(math500: Path, count: int, folder: Path) -> list[Path]:
    files = []
    with math500.open() as f:
        for i, line in zip(range(count), f, strict=False):
            row = json.loads(line)
            doc = folder / f"problem{i + 1}.md"
            doc.write_text(f"## Problem\n{row['problem']}\n\nAnswer: {row['answer']}\n")
            files.append(doc)
    return files


def function_files(humaneval: Path, count: int, folder: Path) -> list[str]:
    targets = []
    with gzip.open(humaneval, "rt") as f:
        for i, line in zip(range(count), f, strict=False):
            row = json.loads(line)
            source = folder / f"function{i + 1}.py"
            source.write_text(row["prompt"] + row["canonical_solution"])
            targets.append(f"{source}::{row['entry_point']}")
    return targets


def run_cli(args: list[str]) -> tuple[float, dict]:
    started = time.monotonic()
    done = subprocess.run(["node", str(ROOT / "dist" / "cli.js"), *args, "--json"], capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"stepwise {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def prove_summary(run: dict, count_tokens) -> dict:
    """What a Prove run did: how it stopped, how it generated, its final answer against the
    reference, and where the time went (seconds and tokens written by each role), which tells
    how much of it is decoding that no client change can save."""
    final = run.get("final")
    chosen = run["iterations"][final["iteration"]]["candidates"][final["candidate"]] if final else None
    candidates = [c for it in run["iterations"] for c in it["candidates"]]
    judges = {"verifier": [c["verifier"] for c in candidates if c["verifier"]], "meta": [c["meta"] for c in candidates if c["meta"]]}
    return {
        "status": run["status"],
        "stopReason": run["stopReason"],
        "rounds": len(run["iterations"]),
        "generation": run["generation"],
        "answerCheck": chosen.get("answerCheck") if chosen else None,
        "role_s": {
            "generator": round(sum(it["generateMs"] for it in run["iterations"]) / 1000, 1),
            **{role: round(sum(j["ms"] for j in js) / 1000, 1) for role, js in judges.items()},
        },
        "meta_openings": [p["raw"][:300] for j in judges["meta"] for p in j["passes"]],
        "role_tokens_written": {
            "generator": sum(count_tokens(c["raw"]) for c in candidates),
            **{role: sum(count_tokens(p["raw"]) for j in js for p in j["passes"]) for role, js in judges.items()},
        },
    }


def tests_summary(run: dict) -> dict:
    """What a tests run produced: tests admitted and valid on the user's function, and where the time went."""
    scores = run.get("scores") or {}
    return {
        "admitted": len(run.get("accumulatedSuite", [])),
        "valid": scores.get("valid"),
        "generatorPassRateValid": scores.get("generatorPassRateValid"),
        "constrained": (run.get("testWriting") or {}).get("planMode"),
        "stage_s": [round(s["ms"] / 1000, 1) for s in run.get("stages", [])],
        "stage_reasoning_chars": [len(s.get("reasoning", "")) for s in run.get("stages", [])],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", required=True, help="the capable model's GGUF file")
    parser.add_argument("--tokenizer", required=True, help="folder with the model's tokenizer_config.json")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="folder with MATH-500.jsonl and HumanEval.jsonl.gz")
    parser.add_argument("--port", type=int, default=8093)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--assertion-grammar", default="auto", choices=["auto", "expressions", "lines"], help="passed to stepwise tests")
    parser.add_argument("--prompts-dir", help="passed to stepwise prove (a variant of the prompt files, as in bench/prompts/)")
    parser.add_argument("--prove-only", action="store_true", help="skip the tests run")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "capable-endpoint.json"))
    a = parser.parse_args()
    data = Path(a.data)
    for name in ("MATH-500.jsonl", "HumanEval.jsonl.gz"):
        if not (data / name).is_file():
            raise SystemExit(f"{data / name} is missing: pass --data with the folder that holds it")
    url = f"http://127.0.0.1:{a.port}/v1"
    model = Path(a.gguf).stem
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            a.gguf,
            "--n_ctx",
            "8192",
            "--n_threads",
            str(a.threads),
            "--port",
            str(a.port),
            "--model_alias",
            model,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    prompts = ["--prompts-dir", a.prompts_dir] if a.prompts_dir else []
    endpoint = ["--endpoint", url, "--model", model, "--tokenizer", a.tokenizer, "--context-window", "8192"]

    def count_tokens(text: str) -> int:
        """Tokens of a text as the served model counts them (llama-cpp-python's /extras/tokenize)."""
        body = json.dumps({"input": text}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{a.port}/extras/tokenize", body, {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return len(json.load(answer)["tokens"])

    try:
        wait_for_server(url)
        load_start = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix="stepwise-capable-") as tmp:
            folder = Path(tmp)
            proofs = []
            for doc in proof_documents(data / "MATH-500.jsonl", 3, folder):
                seconds, run = run_cli(["prove", str(doc), "--iterations", "2", "--no-step-scores", "--save-dir", str(folder / "runs"), *prompts, *endpoint])
                proofs.append({"problem": doc.name, "seconds": round(seconds, 1), **prove_summary(run, count_tokens)})
            tests = []
            for target in [] if a.prove_only else function_files(data / "HumanEval.jsonl.gz", 3, folder):
                seconds, run = run_cli(["tests", target, *endpoint, "--assertion-grammar", a.assertion_grammar])
                tests.append({"function": target.split("::")[1], "seconds": round(seconds, 1), **tests_summary(run)})
    finally:
        server.terminate()
        server.wait(timeout=30)
    prove_s = sum(p["seconds"] for p in proofs)
    tests_s = sum(t["seconds"] for t in tests)
    result = {
        "benchmark": "capable-endpoint",
        "command": "bench/capable-endpoint.py " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "load_average_1m": {"start": load_start, "end": os.getloadavg()[0]}},
        "model": model,
        "server": "llama-cpp-python OpenAI-compatible server, n_ctx 8192",
        "assertion_grammar": a.assertion_grammar,
        "prompts_dir": a.prompts_dir,
        "before_s": BEFORE,
        "after_s": {"prove_s": round(prove_s, 1), "tests_s": round(tests_s, 1) if tests else None},
        "speedup": {"prove": round(BEFORE["prove_s"] / prove_s, 2), "tests": round(BEFORE["tests_s"] / tests_s, 2) if tests else None},
        "prove": proofs,
        "tests": tests,
    }
    Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["after_s"]), json.dumps(result["speedup"]))


if __name__ == "__main__":
    main()
