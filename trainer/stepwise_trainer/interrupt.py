"""Stopping a training run on SIGINT / SIGTERM without losing the steps since the last save.

The extension cancels a run with SIGINT and kills it a minute later; Ctrl+C in a terminal
sends the same signal, and schedulers and ``torchrun`` send SIGTERM. Python's default turns
SIGINT into a KeyboardInterrupt wherever the main thread happens to be, which loses every step
since the last regular checkpoint (up to ``save_steps`` of work). While the Trainer loop runs,
the first signal is therefore only recorded; the callback checks it at the next optimizer step
end, asks the Trainer to save that step and stop, and ends the job with ``TrainingInterrupted``
so that no job goes on to its after-training evaluation or final save. A second signal aborts
at once, as the default would.
"""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from .checkpoints import latest_checkpoint

logger = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class TrainingInterrupted(Exception):
    """Training stopped on a signal after ``step``; ``checkpoint`` is what --resume continues from."""

    def __init__(self, step: int, signal_name: str, checkpoint: Path | None) -> None:
        self.step, self.signal_name, self.checkpoint = step, signal_name, checkpoint
        super().__init__(self.message)

    @property
    def message(self) -> str:
        saved = f"checkpoint {self.checkpoint.name} was saved" if self.checkpoint else "no checkpoint was saved"
        return f"Training was interrupted ({self.signal_name}) at step {self.step}; {saved}."

    @property
    def hint(self) -> str:
        if self.checkpoint is None:
            return "Run again to start over."
        return f"Run again with --resume to continue from {self.checkpoint.name}."


class StopRequest:
    """Records the first SIGINT / SIGTERM instead of dying; the second one aborts at once."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signal_name is not None

    def listen(self) -> None:
        # Python only lets the main thread install handlers; elsewhere the default behaviour stays.
        if threading.current_thread() is not threading.main_thread():
            logger.warning("not on the main thread: an interrupt will stop training without a checkpoint")
            return
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._on_signal)

    def stop_listening(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # No logging here: the handler may run in the middle of a write to stderr, and a
        # re-entrant write to the same buffered stream raises.
        if self.requested:
            raise KeyboardInterrupt  # asked twice: the user does not want to wait for the save
        self.signal_name = signal.Signals(signum).name


def any_process_requested(requested: bool, device: Any) -> bool:
    """Under `accelerate launch` a signal may reach only some ranks, but all of them must stop at
    the same step: saving is a collective (every rank writes its RNG state, then they barrier)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return requested
    import torch

    flag = torch.tensor([1 if requested else 0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())


class CheckpointOnInterrupt:
    """The Trainer-side half: listens while ``train()`` runs, saves and stops at the next step end,
    and raises ``TrainingInterrupted`` from ``on_train_end`` once that checkpoint is written.

    Its methods take the TrainerCallback arguments; ``ProtocolCallback`` calls them, so every job
    that reports progress also saves on interrupt.
    """

    def __init__(self, output_dir: str) -> None:
        self.output_dir = output_dir
        self.request = StopRequest()
        self.stopped_at: int | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any) -> None:
        self.request.stop_listening()  # a previous train() that raised never reached on_train_end
        self.request, self.stopped_at = StopRequest(), None
        self.request.listen()

    def on_step_end(self, args: Any, state: Any, control: Any) -> None:
        if self.stopped_at is None and any_process_requested(self.request.requested, args.device):
            # The Trainer saves right after on_step_end; ProtocolCallback.on_save then renames the
            # folder to step-NNNNNN, writes meta.json and moves `latest` to it.
            control.should_save = True
            control.should_training_stop = True
            self.stopped_at = state.global_step
            logger.warning(
                "%s: saving step %d and stopping; send it again to abort without saving",
                self.request.signal_name or "another process was interrupted",
                state.global_step,
            )

    def on_train_end(self, args: Any, state: Any, control: Any) -> None:
        self.request.stop_listening()  # from here on a signal is a plain KeyboardInterrupt again
        # A signal after the last step end (during the final save) still means: stop here.
        if self.stopped_at is None and not any_process_requested(self.request.requested, args.device):
            return
        raise TrainingInterrupted(state.global_step, self.request.signal_name or "another process", latest_checkpoint(self.output_dir))
