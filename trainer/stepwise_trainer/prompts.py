"""The generator prompt the extension uses (prompts/prove/generator.md), so training and use match."""

from __future__ import annotations

import re
from pathlib import Path

_CANDIDATES = [
    Path(__file__).resolve().parents[2] / "prompts" / "prove" / "generator.md",  # repository / VSIX layout
    Path(__file__).resolve().parent / "data" / "generator.md",
]


def generator_prompt(problem: str) -> str:
    for path in _CANDIDATES:
        if path.exists():
            text = path.read_text(encoding="utf-8")
            text = re.sub(r"^---\n[\s\S]*?\n---\n", "", text)  # front matter
            return text.replace("{{problem}}", problem.strip()).strip()
    raise FileNotFoundError(f"The generator prompt was not found (looked in {', '.join(map(str, _CANDIDATES))}).")
