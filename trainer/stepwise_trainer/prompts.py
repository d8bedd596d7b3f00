"""The product's Prove prompts (prompts/prove/*.md), so training and use ask the same questions.

The generator, the verifier and the meta-verifier are each read from the template the extension
uses; a template's ``{{name}}`` placeholders are filled from keyword arguments.
"""

from __future__ import annotations

import re
from pathlib import Path

_FOLDERS = [
    Path(__file__).resolve().parents[2] / "prompts" / "prove",  # repository / VSIX layout
    Path(__file__).resolve().parent / "data",
]


def product_prompt(name: str, **values: str) -> str:
    """The template ``prompts/prove/<name>.md`` without its front matter, placeholders filled.
    A placeholder with no value is an error: a judge asked about an empty ``{{proof}}`` would grade nothing."""
    for folder in _FOLDERS:
        path = folder / f"{name}.md"
        if path.exists():
            text = re.sub(r"^---\n[\s\S]*?\n---\n", "", path.read_text(encoding="utf-8"))
            missing = sorted(set(re.findall(r"\{\{(\w+)\}\}", text)) - set(values))
            if missing:
                raise KeyError(f"{path} needs {', '.join(missing)}.")
            # One pass over the placeholders: a proof that contains "{{problem}}" is left as written.
            return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)].strip(), text).strip()
    raise FileNotFoundError(f"The prompt {name}.md was not found (looked in {', '.join(map(str, _FOLDERS))}).")


def generator_prompt(problem: str) -> str:
    return product_prompt("generator", problem=problem)


def verifier_prompt(problem: str, proof: str) -> str:
    """prompts/prove/verifier.md: grade the proof 0 / 0.5 / 1 after listing its issues."""
    return product_prompt("verifier", problem=problem, proof=proof)


def meta_verifier_prompt(problem: str, proof: str, self_analysis: str) -> str:
    """prompts/prove/meta-verifier.md: are the issues a self-evaluation names real (R_meta)?"""
    return product_prompt("meta-verifier", problem=problem, proof=proof, selfAnalysis=self_analysis)
