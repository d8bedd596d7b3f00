"""Bridges the Hugging Face Trainer loop to the trainer events and the checkpoint layout."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from .checkpoints import checkpoint_name, point_latest, write_meta
from .events import EventWriter
from .interrupt import CheckpointOnInterrupt


def _wait_for_all_processes() -> None:
    """Under `accelerate launch` every rank writes its own RNG state into the checkpoint; the
    folder may only be renamed once all of them have finished."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()


class ProtocolCallback(TrainerCallback):
    """Progress and metrics as trainer events; every save becomes ``step-NNNNNN`` with
    meta.json, and only then does the ``latest`` pointer move to it. A SIGINT / SIGTERM during
    ``train()`` saves the current step and ends the job (see ``interrupt``)."""

    def __init__(self, events: EventWriter, output_dir: str, job: str) -> None:
        self.events = events
        self.output_dir = output_dir
        self.job = job
        self.interrupt = CheckpointOnInterrupt(output_dir)

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.interrupt.on_train_begin(args, state, control)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.is_world_process_zero:
            self.events.progress(state.global_step, state.max_steps)
        self.interrupt.on_step_end(args, state, control)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.interrupt.on_train_end(args, state, control)  # raises TrainingInterrupted after an interrupt

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if logs and state.is_world_process_zero:
            self.events.metric(state.global_step, {k: v for k, v in logs.items() if isinstance(v, (int, float))})

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        _wait_for_all_processes()
        if state.is_world_process_zero:
            written = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if written.exists():
                checkpoint = written.parent / checkpoint_name(state.global_step)
                if checkpoint.exists():  # a resumed run saving the same step again
                    shutil.rmtree(checkpoint)
                os.replace(written, checkpoint)
                write_meta(checkpoint, state.global_step, self.job, {"maxSteps": state.max_steps})
                point_latest(self.output_dir, checkpoint)
                self.events.checkpoint(state.global_step, str(checkpoint))
        _wait_for_all_processes()
