"""Summarises a bench/grpo-arith-cpu.sh run as JSON on stdout.

    python bench/grpo-arith-summary.py RUN_DIR --grpo-seconds S --sft-seconds S --command TEXT
    python bench/grpo-arith-summary.py --timing EVENTS.jsonl      (where a grpo run's time went)
    python bench/grpo-arith-summary.py --size TIMING.json --probe-seconds S --left S --held-out H
        (held-out problems and steps that fit in the seconds left, from a probe's timing: "H STEPS")
    python bench/grpo-arith-summary.py RUN_DIR --verifier-only     (the verifier stage's figures)

The held-out figures are paired: the grpo job samples the same problems from the same seed before
and after training (RUN_DIR/grpo/held-out-{before,after}.jsonl), so each problem's change in mean
reward, format rate and accuracy is one paired difference, and the 95 % interval is Student's t
over the problems. Accuracy compares the Solution's last boxed answer with the reference answer in
RUN_DIR/data/held-out.jsonl, which neither the reward nor the verifier sees; the same references
measure the verifier's own discrimination (AUROC of its grade R_Y for right against wrong
answers, over the completions in the format, the only ones it grades).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
from pathlib import Path

from stepwise_trainer.algorithms import auroc
from stepwise_trainer.jobs.sft_format import same_answer
from stepwise_trainer.rewards import _boxed, parse_proof_output

# Two-sided 95 % quantiles of Student's t by degrees of freedom (1..30); beyond 30 the normal's 1.96.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131]
T975 += [2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def paired_interval(before: list[float], after: list[float]) -> dict[str, float]:
    """Mean of after − before with its 95 % t-interval (half-width 0 for one pair)."""
    diffs = [a - b for a, b in zip(after, before, strict=True)]
    mean = statistics.fmean(diffs)
    half = 0.0
    if len(diffs) > 1:
        t = T975[len(diffs) - 2] if len(diffs) - 1 <= len(T975) else 1.96
        half = t * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return {"mean_change": mean, "ci95_low": mean - half, "ci95_high": mean + half}


def right(completion: str, answer: str) -> float:
    boxes = _boxed(parse_proof_output(completion).proof)
    return float(bool(boxes) and same_answer(boxes[-1], answer))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def per_problem(rows: list[dict], answers: dict[str, str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for problem in dict.fromkeys(r["problem"] for r in rows):
        mine = [r for r in rows if r["problem"] == problem]
        out[problem] = {
            "reward": statistics.fmean(r["reward"] for r in mine),
            "format_rate": statistics.fmean(r["format"] for r in mine),
            "accuracy": statistics.fmean(right(r["completion"], answers[problem]) for r in mine),
        }
    return out


def verifier_check(rows: list[dict], answers: dict[str, str]) -> dict[str, float | int | None]:
    """How the frozen verifier's grade R_Y tells right answers from wrong ones among the graded completions."""
    graded = [(r["r_y"], right(r["completion"], answers[r["problem"]])) for r in rows if r.get("r_y") is not None]
    rights = [g for g, y in graded if y]
    wrongs = [g for g, y in graded if not y]
    return {
        "graded": len(graded),
        "right": len(rights),
        "auroc": auroc([g for g, _ in graded], [int(y) for _, y in graded]),
        "mean_grade_right": statistics.fmean(rights) if rights else None,
        "mean_grade_wrong": statistics.fmean(wrongs) if wrongs else None,
    }


def events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip().startswith("{")]


def timing(grpo: list[dict]) -> dict[str, object]:
    """Seconds of each phase of a grpo run, from its events' times: loading, the held-out measurement
    before, each training step (with what its verifier and meta-verifier took), the measurement after."""
    start = grpo[0]["time"]
    metrics = [e for e in grpo if e["type"] == "metric"]
    before = next((e["time"] for e in metrics if any(k.startswith("before/") for k in e["data"])), None)
    ends = [e for e in metrics if "reward" in e["data"]]
    costs = {e["step"]: e["data"] for e in metrics if "verify/seconds" in e["data"]}
    after = next((e["time"] for e in metrics if any(k.startswith("after/") for k in e["data"])), None)
    steps, last = [], before if before is not None else start
    for e in ends:
        cost = costs.get(e["step"], {})
        steps.append(
            {
                "step": e["step"],
                "seconds": round(e["time"] - last),
                "verify_seconds": round(cost.get("verify/seconds", 0.0)),
                "meta_verify_seconds": round(cost.get("meta_verify/seconds", 0.0)),
            }
        )
        last = e["time"]
    first = next((e["time"] for e in grpo if e["type"] == "progress" and "held-out" in (e.get("message") or "")), start)
    return {
        "loading_seconds": round(first - start),
        "held_out_before_seconds": None if before is None else round(before - first),
        "steps": steps,
        "held_out_after_seconds": None if after is None else round(after - last),
    }


def verifier_summary(run: Path) -> dict[str, object]:
    """The verifier stage's figures: its scored proofs, its held-out grade error and AUROC before and
    after training (proofs of training problems it never trained on), its steps and its time."""
    trained = events(run / "verifier.events.jsonl")
    metrics = {k: v for e in trained if e["type"] == "metric" for k, v in e["data"].items()}
    metrics.update(next((e["metrics"] for e in trained if e["type"] == "done"), {}))
    keep = ("loss", "reward", "reward_std", "kl", "frac_reward_zero_std", "completions/mean_length")
    steps = [{"step": e["step"], **{k: e["data"][k] for k in keep if k in e["data"]}} for e in trained if e["type"] == "metric" and "reward" in e["data"]]
    root = str(run.absolute().parents[2])
    return {
        "command": (run / "verifier.command").read_text(encoding="utf-8").strip().replace(root + "/", ""),
        "proofs": json.loads((run / "verifier" / "counts.json").read_text(encoding="utf-8")),
        "held_out": "every proof of training problems the verifier never trained on (disjoint from grpo's held-out problems too); "
        "labels from the reference answers",
        # base: the model before the format phase (absent without one); before: what GRPO starts from.
        "heldout_auroc": {w: metrics.get(f"{w}/heldout_auroc") for w in ("base", "before", "after")},
        "heldout_grade_error": {w: metrics.get(f"{w}/heldout_grade_error") for w in ("base", "before", "after")},
        "format_phase": {k.removeprefix("format/"): v for k, v in metrics.items() if k.startswith("format/")},
        "training_trend_per_step": {"reward": trend([s["reward"] for s in steps])},
        "steps": steps,
        "proofs_seconds": int((run / "verifier" / "proofs.seconds").read_text()),
        "train_seconds": int((run / "verifier" / "train.seconds").read_text()),
    }


def trend(values: list[float]) -> float | None:
    """Least-squares slope per step of a training series (None under two points): the training
    reward should climb under the reward GRPO climbs; a falling one says the step size is wrong
    before any held-out interval can.

    >>> trend([0.2, 0.3, 0.4]), trend([0.4, 0.3, 0.2, 0.1]), trend([0.5])
    (0.1, -0.1, None)
    """
    if len(values) < 2:
        return None
    return round(statistics.linear_regression(range(len(values)), values).slope, 6)


def size_run(probe: dict, probe_seconds: float, left: float, most_held_out: int) -> tuple[int, int]:
    """Held-out problems and GRPO steps for the seconds left, from a probe of one step on 2 held-out
    problems: everything the probe spent outside its measurements and its step (imports, loading two
    models, saving) is paid once more, each held-out problem twice (before and after), each step once,
    with 15 % to spare on the measured parts. Most held-out problems first, as long as 6 steps fit:
    a curve needs steps, and its interval needs problems.

    >>> probe = {"held_out_before_seconds": 40, "held_out_after_seconds": 44, "steps": [{"seconds": 100}]}
    >>> size_run(probe, 250, 1700, 32), size_run(probe, 250, 2400, 32), size_run(probe, 250, 1000, 32)
    ((16, 6), (24, 9), (16, 2))
    """
    before, after = probe["held_out_before_seconds"] or 0, probe["held_out_after_seconds"] or 0
    step = max(s["seconds"] for s in probe["steps"]) * 1.15
    fixed = probe_seconds - before - after - sum(s["seconds"] for s in probe["steps"]) + 30  # +30: the summary
    per_problem = max(before, after) / 2 * 1.15
    steps = 0
    for held_out in [h for h in (most_held_out, 24, 16) if h <= most_held_out]:
        steps = min(16, int((left - fixed - 2 * held_out * per_problem) // step))
        if steps >= 6:
            return held_out, steps
    return min(16, most_held_out), max(2, steps)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run", type=Path, nargs="?")
    parser.add_argument("--timing", type=Path, help="print where one grpo run's time went (its events file) and stop")
    parser.add_argument("--size", type=Path, help="a probe's timing JSON: print the held-out problems and steps that fit, and stop")
    parser.add_argument("--probe-seconds", type=float)
    parser.add_argument("--left", type=float)
    parser.add_argument("--held-out", type=int, default=24)
    parser.add_argument("--grpo-seconds", type=int)
    parser.add_argument("--sft-seconds", type=int)
    parser.add_argument("--command")
    parser.add_argument("--verifier-only", action="store_true", help="print the verifier stage's figures (RUN_DIR/verifier) and stop")
    args = parser.parse_args()
    if args.verifier_only:
        if args.run is None:
            parser.error("--verifier-only needs RUN_DIR")
        print(json.dumps(verifier_summary(args.run), indent=1))
        return
    if args.timing:
        print(json.dumps(timing(events(args.timing)), indent=1))
        return
    if args.size:
        if args.probe_seconds is None or args.left is None:
            parser.error("--size needs --probe-seconds and --left")
        print(*size_run(json.loads(args.size.read_text()), args.probe_seconds, args.left, args.held_out))
        return
    if args.run is None or args.grpo_seconds is None or args.sft_seconds is None or args.command is None:
        parser.error("RUN_DIR, --grpo-seconds, --sft-seconds and --command are needed without --timing")
    answers = {r["problem"]: r["answer"] for r in records(args.run / "data" / "held-out.jsonl")}
    rows_before = records(args.run / "grpo" / "held-out-before.jsonl")
    rows_after = records(args.run / "grpo" / "held-out-after.jsonl")
    before, after = per_problem(rows_before, answers), per_problem(rows_after, answers)
    problems = list(before)

    def changes(later: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        out = {}
        for key in ("reward", "format_rate", "accuracy"):
            b, a = [before[p][key] for p in problems], [later[p][key] for p in problems]
            out[key] = {"before": statistics.fmean(b), "after": statistics.fmean(a), **paired_interval(b, a)}
        return out

    figures = changes(after)
    # A run continued in a second slot (the script's `more` stage) kept the first part's
    # after-record: a point in the middle of the curve, paired with the same before.
    middle = {
        int(f.stem.removeprefix("held-out-after-step")): changes(per_problem(records(f), answers))
        for f in sorted((args.run / "grpo").glob("held-out-after-step*.jsonl"))
    }
    parts = [events(args.run / "grpo.events.jsonl")]
    if (args.run / "grpo-more.events.jsonl").exists():
        parts.append(events(args.run / "grpo-more.events.jsonl"))
    grpo = [e for part in parts for e in part]
    sft = events(args.run / "sft.events.jsonl")
    keep = ("loss", "reward", "reward_std", "rewards/format_reward/mean", "kl", "frac_reward_zero_std", "completions/mean_length")
    steps = [{"step": e["step"], **{k: e["data"][k] for k in keep if k in e["data"]}} for e in grpo if e["type"] == "metric" and "reward" in e["data"]]
    sft_losses = [e["data"]["loss"] for e in sft if e["type"] == "metric" and "loss" in e["data"]]
    sft_check = {k: v for e in sft if e["type"] == "metric" for k, v in e["data"].items() if k.startswith(("before/", "after/"))}
    root = str(args.run.absolute().parents[2])  # the checkout: .cache/bench/<run> lies under it
    k = len(rows_before) // max(1, len(problems))
    # A verifier the verifier stage trained grades this run when its folder is the one grpo was given.
    trained = (args.run / "verifier" / "summary.json").exists() and "verifier/model/" in args.command
    judge = (
        (
            "the verifier job's format-phase model (format_verdict steps on the sft-format model's own scored sums), frozen,"
            if "verifier/model/format/final" in args.command
            else "the verifier job's model (trained from the sft-format model on its own scored sums, bench/arith-scored-proofs.py), frozen,"
        )
        if trained
        else "a frozen copy of the sft-format model"
    )
    result = {
        "benchmark": "issue 43: a GRPO learning curve on this 2-core CPU with a separate "
        + ("trained" if trained else "(frozen)")
        + " verifier, on two-number sums and differences",
        "command": args.command.replace(root + "/", "").replace(root, "."),
        "model": "SmolLM2-135M-Instruct (GGUF dequantised to fp32), full fine-tuning; one torch thread",
        "task": "bench/arith-problems.py, seed 0: 'Compute a ± b.' with a, b in 10..99; held-out problems disjoint from the training ones",
        "reward": f"R = R_format·(0.76·R_Y + 0.24·R_score·R_meta), R_Y and R_meta from {judge} under prompts/prove/verifier.md "
        "and meta-verifier.md; "
        + (
            "the reference answers of the verifier's training problems label its training proofs; the held-out problems' answers reach neither "
            "the reward nor the verifier"
            if trained
            else "the reference answers reach neither the reward nor the verifier"
        ),
        "held_out": f"{len(problems)} problems × {k} completions at temperature 1, the same seed before and after; intervals are paired t over problems",
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": 2,
            "torch_device": "cpu",
            "shared": "other helpers' builds and tests ran alongside",
        },
        "sft_format_seconds": args.sft_seconds,
        "grpo_seconds": args.grpo_seconds,
        "sft_format_losses": sft_losses,
        "sft_format_greedy_check": sft_check,
        "heldout": figures,
        "heldout_after_step": {str(k): v for k, v in middle.items()},
        "rose_beyond_interval": {key: v["ci95_low"] > 0 for key, v in figures.items()},
        **({"verifier_training": json.loads((args.run / "verifier" / "summary.json").read_text(encoding="utf-8"))} if trained else {}),
        "verifier_on_held_out": {"before": verifier_check(rows_before, answers), "after": verifier_check(rows_after, answers)},
        "training_trend_per_step": {
            "reward": trend([s["reward"] for s in steps]),
            "format_rate": trend([s["rewards/format_reward/mean"] for s in steps if "rewards/format_reward/mean" in s]),
        },
        "steps": steps,
        "timing": [timing(part) for part in parts],
        "per_problem": [{"problem": p, "before": before[p], "after": after[p]} for p in problems],
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
