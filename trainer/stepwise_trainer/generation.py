"""Generating for several prompts at once, each row as if it were alone.

On a GPU a small model's decoding is bound by Python and kernel launches, not arithmetic: one
prompt at a time, a batch of 32 costs about what one row costs. Rows of different lengths are
padded on the left, so every row's next token comes right after its own prompt.
"""

from __future__ import annotations

from typing import Any


def complete_batch(model: Any, tokenizer: Any, prompts: list[str], **generate_kwargs: Any) -> list[str]:
    """The decoded completion of every prompt, in order; with ``num_return_sequences=K`` the K
    completions of each prompt follow one another. ``generate_kwargs`` go to ``model.generate``
    (``stop_strings`` work per row: a row that stops is padded while the others go on)."""
    if not prompts:
        return []
    padding_side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    try:
        batch = tokenizer(prompts, return_tensors="pt", padding=True).to(model.device)
        # generate needs the tokenizer to match stop_strings.
        out = model.generate(**batch, pad_token_id=tokenizer.pad_token_id, tokenizer=tokenizer, **generate_kwargs)
        return tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    finally:
        tokenizer.padding_side = padding_side


def chunks(items: list[Any], size: int) -> list[list[Any]]:
    """``items`` in consecutive slices of at most ``size``.

    >>> chunks([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]
    """
    return [items[i : i + size] for i in range(0, len(items), max(1, size))]
