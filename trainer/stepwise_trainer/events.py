"""The trainer's events on stdout: one JSON object per line, nothing else.

Event shapes are defined once in ``protocol/trainer-events.schema.json`` at the repository
root; the extension validates them with the zod mirror in ``src/core/trainer/events.ts``.
Libraries print freely (tqdm, warnings, transformers), so while a job runs the process's
stdout file descriptor is pointed at stderr and events go to a private copy of the original.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

SCHEMA_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "protocol", "trainer-events.schema.json")


def is_secondary_process() -> bool:
    """True on every rank but 0 of a multi-process (accelerate / torchrun) launch."""
    return int(os.environ.get("RANK", "0")) != 0


class EventWriter:
    """Writes the events to the real stdout, whatever else writes to sys.stdout."""

    def __init__(self, job: str, stream: Any | None = None) -> None:
        self.job = job
        # Under `accelerate launch` every process runs the job; only the main one speaks.
        if is_secondary_process():
            self._out = open(os.devnull, "w")
            return
        if stream is not None:
            self._out = stream
            return
        sys.stdout.flush()
        # A duplicate of fd 1 keeps the event channel; fd 1 itself then points at stderr so
        # that stray prints (including from C extensions) never corrupt the protocol.
        protocol_fd = os.dup(1)
        os.dup2(2, 1)
        self._out = os.fdopen(protocol_fd, "w", buffering=1, encoding="utf-8")
        sys.stdout = sys.stderr

    def _emit(self, event: dict[str, Any]) -> None:
        event = {"job": self.job, "time": round(time.time(), 3), **event}
        self._out.write(json.dumps(event, allow_nan=False) + "\n")
        self._out.flush()

    def progress(self, step: int, total_steps: int, message: str | None = None) -> None:
        event: dict[str, Any] = {"type": "progress", "step": int(step), "totalSteps": int(total_steps)}
        if message:
            event["message"] = message
        self._emit(event)

    def metric(self, step: int, data: dict[str, float]) -> None:
        clean = {k: float(v) for k, v in data.items() if isinstance(v, (int, float)) and math.isfinite(float(v))}
        if clean:
            self._emit({"type": "metric", "step": int(step), "data": clean})

    def checkpoint(self, step: int, path: str) -> None:
        self._emit({"type": "checkpoint", "step": int(step), "path": str(path)})

    def done(self, output: str, metrics: dict[str, float], onnx: str | None = None) -> None:
        event: dict[str, Any] = {"type": "done", "output": str(output), "metrics": {k: float(v) for k, v in metrics.items() if math.isfinite(float(v))}}
        if onnx:
            event["onnx"] = str(onnx)
        self._emit(event)

    def error(self, message: str, hint: str | None = None) -> None:
        event: dict[str, Any] = {"type": "error", "message": message}
        if hint:
            event["hint"] = hint
        self._emit(event)
