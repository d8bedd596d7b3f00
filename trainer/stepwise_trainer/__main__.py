"""``python -m stepwise_trainer <job> [--config file.yaml] [--option value ...]``

Jobs: prm, orm, rm-compare, sft-format, verifier, grpo, dpo, question-generator, adversarial, export. stdout carries only trainer events
(JSON lines); logs go to stderr. Exit code 0 on success, 1 on a job error, 2 on bad options,
130 when interrupted (SIGINT / SIGTERM; during training the current step is saved first).
"""

from __future__ import annotations

import importlib
import logging
import sys
import traceback

from .config import ConfigError, load_config
from .events import EventWriter
from .interrupt import TrainingInterrupted

JOBS = {
    "prm": "prm",
    "orm": "orm",
    "rm-compare": "rm_compare",
    "sft-format": "sft_format",
    "grpo": "grpo",
    "verifier": "verifier",
    "dpo": "dpo",
    "question-generator": "question_generator",
    "adversarial": "adversarial",
    "export": "export",
}

USAGE = "usage: python -m stepwise_trainer {" + ",".join(JOBS) + "} [--config FILE] [--option value ...]  (--help on a job lists its options)"


def seed_everything(seed: int | None) -> None:
    """Seeds Python, NumPy and torch before the job builds anything. The Trainer seeds itself only
    once it starts, after a new PRM head has been drawn: without this, two runs with the same data
    and --seed would train from different heads and end in different models."""
    if seed is None:
        return
    from transformers import set_seed

    set_seed(seed)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() + "\n\n" + USAGE, file=sys.stderr)
        return 0 if argv else 2
    job = argv[0]
    if job not in JOBS:
        print(f"unknown job {job!r}\n{USAGE}", file=sys.stderr)
        return 2
    module = importlib.import_module(f".jobs.{JOBS[job]}", __package__)
    config_class = next(v for v in vars(module).values() if isinstance(v, type) and getattr(v, "JOB", None) == job and hasattr(v, "__dataclass_fields__"))
    try:
        cfg = load_config(config_class, argv[1:])
    except ConfigError as e:
        EventWriter(job).error(str(e), "Fix the option and run again; --help lists every option.")
        return 2
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    events = EventWriter(job)
    try:
        seed_everything(getattr(cfg, "seed", None))
        module.run(cfg, events)
        return 0
    except TrainingInterrupted as stop:
        events.error(stop.message, stop.hint)
        return 130
    except KeyboardInterrupt:
        events.error("Training was interrupted.", "Run again with --resume to continue from the last checkpoint.")
        return 130
    except Exception as e:  # the event stream must always end with an error event the editor can show
        traceback.print_exc(file=sys.stderr)
        hint = "Out of memory: lower --batch-size or --max-length, or use --lora-r 8." if "out of memory" in str(e).lower() else None
        events.error(f"{type(e).__name__}: {e}", hint)
        return 1


if __name__ == "__main__":
    sys.exit(main())
