"""``sft-format``: teach a base model the Solution / Self Evaluation / boxed-score format.

As in "Let's Verify Step by Step", a small SFT set (a few hundred examples) is enough to fix an
output format without teaching new knowledge. Examples are built from MATH-500 reference
solutions: a correct solution with a self-score of 1, and the same solution with its final
answer changed, with a self-evaluation that names the wrong answer and a self-score of 0, so the
model learns the format and an honest score at once. ``--eval-problems`` held-out problems
measure, on greedy outputs before and after: the format-correctness rate, the final-answer
accuracy, and how well the self-score tells right answers from wrong ones (AUROC).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ..algorithms import auroc
from ..config import CommonConfig, ConfigError
from ..events import EventWriter, is_secondary_process
from ..generation import chunks, complete_batch
from ..models import TRAINED_DTYPE, load_causal_lm, load_tokenizer, pick_device
from ..prompts import generator_prompt
from ..rewards import CLOSING, OPENING, _boxed, parse_proof_output
from .common import finish, lora_for, merge_lora_for_generation, progress_callbacks, run_training, trainer_arguments

JOB = "sft-format"
SELF_EVALUATION = "## Self Evaluation"
WORK_GIVES = "the work gives"
log = logging.getLogger(__name__)
DEFAULT_MATH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "data", "MATH-500.jsonl")


@dataclass
class SftFormatConfig(CommonConfig):
    """Teach the Solution / Self Evaluation / boxed-score output format."""

    JOB = JOB
    math_data: str = field(default=DEFAULT_MATH, metadata={"help": "MATH-500 JSONL (problem, solution, answer) the examples are built from."})
    examples: int = field(default=300, metadata={"help": "Training examples to build (half honest-correct, half honest-wrong)."})
    eval_problems: int = field(default=20, metadata={"help": "Held-out problems whose outputs measure the format-correctness rate before and after."})
    eval_max_new_tokens: int = field(default=384, metadata={"help": "Tokens generated per held-out problem."})
    eval_batch_size: int = field(default=1, metadata={"help": "Held-out problems generated together (left-padded); raise it on a GPU."})

    def __post_init__(self) -> None:
        if not self.data:
            self.data = ""
        super().__post_init__()
        if not os.path.exists(self.math_data):
            raise ConfigError(
                f"MATH-500 was not found at {self.math_data}; pass --math-data PATH (the file ships in ../shared/data of the development checkout)."
            )
        if self.examples < 2:
            raise ConfigError("examples must be at least 2.")
        if self.eval_batch_size < 1:
            raise ConfigError("eval_batch_size must be at least 1.")


def _alter_answer(solution: str, answer: str) -> str | None:
    """The solution with its boxed final answer changed, or None when it has none."""
    boxed = f"\\boxed{{{answer}}}"
    if boxed not in solution:
        return None
    wrong = str(int(answer) + 1) if re.fullmatch(r"-?\d+", answer.strip()) else f"{answer}+1"
    return solution.replace(boxed, f"\\boxed{{{wrong}}}")


def format_example(problem: str, solution: str, correct: bool, answer: str) -> dict[str, Any]:
    if correct:
        analysis = f"{OPENING} each step follows from the previous one and the final answer {answer} is justified; I found no gap."
        score = "1"
    else:
        analysis = f"{OPENING} the steps before the end are sound, but the final answer does not follow from them: {WORK_GIVES} {answer}, so the boxed answer is wrong."
        score = "0"
    # The prompt asks the Solution to close with a "Final answer:" line (the editor's plan writes
    # it); the example closes with the answer its solution boxes, right or wrong.
    boxes = _boxed(solution)
    final = f"\n\nFinal answer: $\\boxed{{{boxes[-1]}}}$" if boxes else ""
    completion = f"## Solution\n{solution.strip()}{final}\n\n{SELF_EVALUATION}\n{analysis}\n\n{CLOSING} \\boxed{{{score}}}"
    return {
        "prompt": [{"role": "user", "content": generator_prompt(problem)}],
        "completion": [{"role": "assistant", "content": completion}],
        "correct": correct,
    }


def training_text(tokenizer: Any, example: dict[str, Any]) -> dict[str, str]:
    """The example as the prompt and completion text the loss is split on (the loss falls on the
    completion only). An honest-correct example trains its whole answer. An honest-wrong one trains
    only its Self Evaluation: its Solution, whose answer was altered on purpose, moves into the prompt.
    Trained on, that Solution taught the model to box a different answer than its own work gave and
    then score itself 0: 32 of 50 held-out outputs after 240 steps on an H200, with 2 of 50 answers right.
    """
    full = tokenizer.apply_chat_template(example["prompt"] + example["completion"], tokenize=False)
    prompt = tokenizer.apply_chat_template(example["prompt"], tokenize=False, add_generation_prompt=True)
    if not full.startswith(prompt):
        raise ValueError("the chat template renders the conversation differently from its prompt; the loss cannot be split")
    split = len(prompt) if example["correct"] else full.rindex(SELF_EVALUATION)
    # The turn ends with the end-of-turn token; a newline after it is not the model's to write.
    return {"prompt": full[:split], "completion": full[split:].rstrip("\n")}


def build_examples(rows: list[dict[str, Any]], n: int, seed: int, fits: Callable[[dict[str, Any]], bool] | None = None) -> list[dict[str, Any]]:
    """Up to ``n`` examples, alternating honest-correct and honest-wrong. ``fits`` drops examples
    longer than the training length: a truncated one would teach an output without its closing
    self-evaluation and score."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for row in rng.sample(rows, len(rows)):
        if len(out) >= n:
            break
        altered = _alter_answer(row["solution"], row["answer"])
        if altered is None:
            continue
        wrong = len(out) % 2 == 1
        example = format_example(row["problem"], altered if wrong else row["solution"], not wrong, row["answer"])
        if fits is None or fits(example):
            out.append(example)
    return out


def token_length(tokenizer: Any, example: dict[str, Any]) -> int:
    text = training_text(tokenizer, example)
    return len(tokenizer(text["prompt"] + text["completion"], add_special_tokens=False)["input_ids"])


def _plain_answer(text: str) -> str:
    """A boxed answer with LaTeX spacing, sizing and display commands taken out. The extension's
    `stepwise eval prove` has the careful equivalence check; this one only counts an answer right
    when it matches after normalising, so it can undercount, never overcount."""
    text = re.sub(r"\\(left|right|!|,|;|:|displaystyle)|\$|\s", "", text).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    text = re.sub(r"^\\text\{(.*)\}$", r"\1", text).rstrip(".")
    try:
        return repr(float(text))
    except ValueError:
        return text


def contradicts_itself(proof: str, analysis: str) -> bool:
    r"""Whether a self-evaluation in the honest-wrong examples' words names another answer than the
    one the Solution boxes: a model that writes an answer it knows is wrong, to score it 0.

    >>> contradicts_itself(r"so $\boxed{8}$", "the work gives 7, so the boxed answer is wrong.")
    True
    >>> contradicts_itself(r"so $\boxed{7}$", "the work gives 7, so the boxed answer is wrong."), contradicts_itself(r"$\boxed{7}$", "no gap")
    (False, False)
    """
    said = re.search(rf"{WORK_GIVES} (.+?), so the boxed answer is wrong", analysis, re.S)
    boxes = _boxed(proof)
    return bool(said and boxes and not same_answer(said.group(1), boxes[-1]))


def same_answer(answer: str, reference: str) -> bool:
    r"""Whether two boxed answers match after normalising (see _plain_answer).

    >>> same_answer(r"\dfrac{14}{3}", r"\frac{14}{3}"), same_answer(r"\left( 3, \frac{\pi}{2} \right)", r"(3,\frac{\pi}{2})"), same_answer("5.0", "5")
    (True, True, True)
    >>> same_answer("4", r"\frac{1}{4}")
    False
    """
    return _plain_answer(answer) == _plain_answer(reference)


def held_out_check(
    model: Any,
    tokenizer: Any,
    rows: list[dict[str, Any]],
    max_new_tokens: int,
    batch_size: int = 1,
    on_batch: Callable[[int], None] | None = None,
    record: str | None = None,
) -> dict[str, float]:
    """Greedy outputs on held-out problems: the share the proof parser accepts (R_format = 1), the
    share whose last boxed answer in the Solution matches the reference, and the AUROC of the
    self-score against that correctness (left out when every answer is right or every one wrong).
    ``on_batch(i)`` is called before the batch starting at problem i: on a CPU each takes seconds.
    ``record`` names a JSONL file that keeps each output with its verdicts, so a rate below target
    can be traced to the outputs that missed it."""
    model.eval()
    prompts = [
        tokenizer.apply_chat_template([{"role": "user", "content": generator_prompt(row["problem"])}], tokenize=False, add_generation_prompt=True)
        for row in rows
    ]
    outputs: list[str] = []
    with torch.no_grad():
        for start, batch in zip(range(0, len(prompts), batch_size), chunks(prompts, batch_size), strict=True):
            if on_batch:
                on_batch(start)
            outputs += complete_batch(model, tokenizer, batch, max_new_tokens=max_new_tokens, do_sample=False)
    formatted, contradictions, right, self_scores, kept = 0, 0, [], [], []
    for row, output in zip(rows, outputs, strict=True):
        parsed = parse_proof_output(output)
        formatted += parsed.format_reward
        contradicts = contradicts_itself(parsed.proof, parsed.self_analysis)
        contradictions += contradicts
        answers = _boxed(parsed.proof)
        right.append(int(bool(answers) and same_answer(answers[-1], str(row.get("answer", "")))))
        self_scores.append(0.0 if parsed.self_score is None else parsed.self_score)
        kept.append(
            {
                "problem": row["problem"],
                "answer": row.get("answer"),
                "output": output,
                "format": parsed.format_reward,
                "right": right[-1],
                "self_score": parsed.self_score,
                "contradicts": contradicts,
            }
        )
    if record and not is_secondary_process():
        with open(record, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(k) + "\n" for k in kept)
    n = max(1, len(rows))
    # contradiction_rate: outputs whose self-evaluation says the work gives another answer than the
    # one boxed (an H200 run of the first recipe: 32 of 50).
    out_metrics = {"format_rate": formatted / n, "answer_accuracy": sum(right) / n, "contradiction_rate": contradictions / n}
    separation = auroc(self_scores, right)
    if separation is not None:
        out_metrics["self_score_auroc"] = separation
    return out_metrics


def held_out_split(rows: list[dict[str, Any]], n: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``n`` held-out problems and the pool the examples come from: a seeded shuffle, so a later
    job (GRPO on the result) can measure on the same held-out problems.

    >>> held_out_split([{"i": i} for i in range(5)], 2, 0)
    ([{'i': 2}, {'i': 1}], [{'i': 0}, {'i': 4}, {'i': 3}])
    """
    shuffled = list(rows)
    random.Random(seed).shuffle(shuffled)
    return shuffled[:n], shuffled[n:]


def run(cfg: SftFormatConfig, events: EventWriter) -> dict[str, float]:
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    device, _ = pick_device(cfg.device)
    tokenizer = load_tokenizer(cfg.base_model)
    with open(cfg.math_data, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    held_out, pool = held_out_split(rows, cfg.eval_problems, cfg.seed)
    examples = build_examples(pool, cfg.examples, cfg.seed, fits=lambda ex: token_length(tokenizer, ex) <= cfg.max_length)
    if len(examples) < cfg.examples:
        log.warning("only %d examples fit in --max-length %d tokens (asked for %d)", len(examples), cfg.max_length, cfg.examples)
    events.progress(0, cfg.max_steps, f"{len(examples)} format examples, {len(held_out)} held-out problems")
    model = load_causal_lm(cfg.base_model, TRAINED_DTYPE).to(device)

    def checking(step: int, when: str) -> Callable[[int], None]:
        return lambda i: events.progress(step, cfg.max_steps, f"format check {when} training: problem {i + 1} of {len(held_out)}")

    def check(model: Any, step: int, when: str) -> dict[str, float]:
        os.makedirs(cfg.output_dir, exist_ok=True)
        record = os.path.join(cfg.output_dir, f"held-out-{when}.jsonl")
        return held_out_check(model, tokenizer, held_out, cfg.eval_max_new_tokens, cfg.eval_batch_size, checking(step, when), record)

    before = {f"before/{k}": v for k, v in check(model, 0, "before").items()}
    events.metric(0, before)
    args = SFTConfig(**trainer_arguments(cfg, device), max_length=cfg.max_length, completion_only_loss=True)
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list([training_text(tokenizer, ex) for ex in examples]),
        processing_class=tokenizer,
        peft_config=lora_for(cfg),
        callbacks=progress_callbacks(events, cfg, JOB),
    )
    loss = run_training(trainer, cfg)
    merge_lora_for_generation(trainer.model)
    after = {f"after/{k}": v for k, v in check(trainer.model, cfg.max_steps, "after").items()}
    events.metric(cfg.max_steps, after)
    return finish(trainer, tokenizer, cfg, events, {**before, **after, "examples": float(len(examples)), "train_loss": loss})
