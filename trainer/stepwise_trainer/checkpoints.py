"""Step-numbered checkpoints with metadata and a ``latest`` pointer written last.

Layout: ``OUT/checkpoints/step-000050/`` (the Trainer's files plus ``meta.json``) and
``OUT/checkpoints/latest``, a one-line file naming the newest complete checkpoint. The
pointer is replaced atomically (write + fsync + rename) only after the checkpoint is whole,
so a process killed at any moment leaves either the previous or the new checkpoint in force.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


def checkpoints_dir(output_dir: str | os.PathLike) -> Path:
    return Path(output_dir) / "checkpoints"


def checkpoint_name(step: int) -> str:
    """``step-000050``: zero-padded so that names sort in step order."""
    return f"step-{step:06d}"


def write_meta(checkpoint: Path, step: int, job: str, extra: dict[str, Any] | None = None) -> None:
    meta = {"step": step, "job": job, "savedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **(extra or {})}
    (checkpoint / "meta.json").write_text(json.dumps(meta, indent=2))


def point_latest(output_dir: str | os.PathLike, checkpoint: Path) -> None:
    """Makes ``checkpoint`` the one ``--resume`` continues from; written after the checkpoint."""
    directory = checkpoints_dir(output_dir)
    tmp = directory / f".latest.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(checkpoint.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, directory / "latest")


def latest_checkpoint(output_dir: str | os.PathLike) -> Path | None:
    """The checkpoint the ``latest`` pointer names, if it exists and is complete."""
    pointer = checkpoints_dir(output_dir) / "latest"
    if not pointer.exists():
        return None
    candidate = checkpoints_dir(output_dir) / pointer.read_text().strip()
    return candidate if (candidate / "meta.json").exists() else None
