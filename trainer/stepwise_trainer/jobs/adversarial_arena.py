"""The adversarial job's arena: the problems, the chain of stage answers both roles read, and the
rewards from the sandbox (seed 002). The schedule and the checkpoints are in ``adversarial``."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

from ..algorithms import generator_reward, test_writer_reward
from ..sandbox import SandboxRunner, code_block

# How a test is written: one assertion per line, judged by the sandbox's oracle (prompts/code/stages.json).
ASSERTION_FORM = "`assert FN(...) == expected` (or `with pytest.raises(SomeError): FN(...)`)"


def load_problems(path: str) -> list[dict[str, str]]:
    """Problems as {spec, function_name, reference}; HumanEval rows are converted."""
    opener = gzip.open if path.endswith(".gz") else open
    problems = []
    with opener(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if "canonical_solution" in row:
                problems.append(
                    {
                        "spec": row["prompt"],
                        "function_name": row["entry_point"],
                        "reference": row["prompt"] + row["canonical_solution"],
                        "tests": reference_tests(row.get("test", ""), row["entry_point"]),
                    }
                )
            elif {"spec", "function_name", "reference"} <= set(row):
                problems.append({k: row[k] for k in ("spec", "function_name", "reference")})
            else:
                raise ValueError(f"{path} line {i}: needs prompt/entry_point/canonical_solution or spec/function_name/reference.")
    if not problems:
        raise ValueError(f"{path} holds no problems.")
    return problems


def reference_tests(check: str, function_name: str) -> str:
    """The one-line assertions of a HumanEval ``check(candidate)``, calling the function by its name,
    in the sandbox's assertion form; multi-line assertions are left out (the oracle reads one per line).

    >>> reference_tests("def check(candidate):\\n    assert candidate(1) == 2\\n    assert candidate([\\n        1]) == 1\\n", "f")
    'assert f(1) == 2'
    """
    lines = []
    for line in check.splitlines():
        text = line.strip()
        balanced = all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))
        if text.startswith("assert ") and "candidate(" in text and balanced:
            lines.append(re.sub(r"\bcandidate\(", f"{function_name}(", text))
    return "\n".join(lines)


def fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template


class Arena:
    """The state both roles share: problems, stage outputs, the latest code and the accumulated suite.

    Prompts are conversations as the extension builds them (prompts/code/stages.json): the opening,
    then one exchange per stage (its generator task and the generator's answer), then the task of
    the role being trained. Stages are trained in order (1 → 5), so when stage s trains, the answers
    of stages 1..s−1 are the generator's last answers there and stay as they are: the chain before
    the stage is frozen context. The stage-s test writer sees that chain and stage s's own answer
    (at stage 5, the code).
    """

    def __init__(self, problems: list[dict[str, str]], stages: dict[int, dict[str, Any]], sandbox: SandboxRunner, opening: str) -> None:
        self.problems, self.stages, self.sandbox, self.opening = problems, stages, sandbox, opening
        self.latest_code = ["" for _ in problems]
        self.outputs: list[dict[int, str]] = [{} for _ in problems]  # per problem: the generator's latest answer at each stage
        self.suite: list[list[str]] = [[] for _ in problems]  # valid test files per problem
        self.generator_rewards: list[float] = []
        self.validities: list[float] = []

    def _values(self, p: dict[str, str], stage: int) -> dict[str, str]:
        s = self.stages[stage]
        return {
            "spec": p["spec"],
            "language": "Python",
            "framework": "pytest",
            "assertion_form": ASSERTION_FORM.replace("FN", p["function_name"]),
            "function_name": p["function_name"],
            "focus": s["testFocus"],
            "test_budget": str(s.get("testBudget", 3)),
        }

    def _task(self, i: int, stage: int, role: str) -> str:
        return fill(self.stages[stage][role], **self._values(self.problems[i], stage))

    def _conversation(self, i: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
        """Messages from (role, text) turns; the first user message opens with the function and its specification."""
        opening = fill(self.opening, **self._values(self.problems[i], 1))
        messages = [{"role": role, "content": text} for role, text in turns]
        messages[0]["content"] = f"{opening}\n\n{messages[0]['content']}"
        return messages

    def _chain(self, i: int, stage: int) -> list[tuple[str, str]]:
        """The exchanges of the stages before ``stage`` that have an answer, in stage order."""
        return [turn for s in sorted(self.outputs[i]) if s < stage for turn in self._answered(i, s, self.outputs[i][s])]

    def generator_messages(self, i: int, stage: int) -> list[dict[str, str]]:
        return self._conversation(i, [*self._chain(i, stage), ("user", self._task(i, stage, "generatorTask"))])

    def _answered(self, i: int, stage: int, reasoning: str) -> list[tuple[str, str]]:
        """A stage's exchange: its generator task and the reasoning written for it."""
        return [("user", self._task(i, stage, "generatorTask")), ("assistant", reasoning)]

    def test_writer_messages(self, i: int, stage: int) -> list[dict[str, str]]:
        task = ("user", self._task(i, stage, "testWriterTask"))
        current = self.outputs[i].get(stage)
        return self._conversation(i, [*self._chain(i, stage), *(self._answered(i, stage, current) if current else []), task])

    def code_messages(self, i: int, stage: int, reasoning: str) -> list[dict[str, str]]:
        """A stage's reasoning carried on to stage 5's code, as the next message of its conversation."""
        return self._conversation(i, [*self._chain(i, stage), *self._answered(i, stage, reasoning), ("user", self._task(i, 5, "generatorTask"))])

    def fresh_code_messages(self, i: int) -> list[dict[str, str]]:
        """Stage 5's code task with no chain before it: the same question before and after training."""
        return self._conversation(i, [("user", self._task(i, 5, "generatorTask"))])

    def fresh_test_messages(self, i: int, code_reply: str) -> list[dict[str, str]]:
        """Stage 5's test task against the code ``code_reply`` gives, with no chain before it."""
        return self._conversation(i, [*self._answered(i, 5, code_reply), ("user", self._task(i, 5, "testWriterTask"))])

    def suite_pass_rate(self, i: int, code: str) -> tuple[int, int]:
        passed = total = 0
        for tests in self.suite[i]:
            result = self.sandbox.run(code, tests, self.problems[i]["function_name"])
            passed, total = passed + result.passed, total + result.total
        return passed, total


def _dataset(arena: Arena, stage: int, role: str) -> Any:
    from datasets import Dataset

    make = arena.generator_messages if role == "generator" else arena.test_writer_messages
    return Dataset.from_list([{"prompt": make(i, stage), "problem_index": i} for i in range(len(arena.problems))])


def _greedy(model: Any, tokenizer: Any, messages: list[dict[str, str]], max_new_tokens: int) -> str:
    import torch

    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(text, return_tensors="pt").to(model.device)
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    return tokenizer.decode(out[0, ids["input_ids"].shape[1] :], skip_special_tokens=True)


def _text(completion: Any) -> str:
    return completion[-1]["content"] if isinstance(completion, list) else str(completion)


def make_rewards(arena: Arena, stage: int, generator: Any, tokenizer: Any, max_new_tokens: int):
    def generator_code_reward(prompts: list, completions: list, problem_index: list[int], **_: Any) -> list[float]:
        rewards = []
        for i, completion in zip(problem_index, completions, strict=True):
            reply = _text(completion)
            arena.outputs[i][stage] = reply
            if stage < 5:  # carry this stage's reasoning to code without gradients
                reply = _greedy(generator, tokenizer, arena.code_messages(i, stage, reply), max_new_tokens)
            code = code_block(reply)
            arena.latest_code[i] = code
            passed, total = arena.suite_pass_rate(i, code)
            rewards.append(generator_reward(passed, total))
        arena.generator_rewards.extend(rewards)
        return rewards

    def test_writer_reward_fn(prompts: list, completions: list, problem_index: list[int], **_: Any) -> list[float]:
        rewards = []
        for i, completion in zip(problem_index, completions, strict=True):
            tests = code_block(_text(completion))
            name = arena.problems[i]["function_name"]
            on_reference = arena.sandbox.run(arena.problems[i]["reference"], tests, name)
            if on_reference.total == 0:
                rewards.append(0.0)
                arena.validities.append(0.0)
                continue
            validity = on_reference.pass_rate
            on_generated = arena.sandbox.run(arena.latest_code[i], tests, name)
            rewards.append(test_writer_reward(on_generated.pass_rate, validity, on_reference.total))
            arena.validities.append(validity)
            if validity == 1.0:
                arena.suite[i].append(tests)
        return rewards

    return generator_code_reward, test_writer_reward_fn


def answer_the_stage(arena: Arena, stage: int, generator: Any, tokenizer: Any, max_new_tokens: int) -> None:
    """A stage opens with its test writer, before the generator has answered it: the current
    generator's greedy answer (and, from it, code) fills in, so the test writer sees the stage's
    reasoning and attacks real code rather than an empty function."""
    for i in range(len(arena.problems)):
        if stage not in arena.outputs[i]:
            arena.outputs[i][stage] = _greedy(generator, tokenizer, arena.generator_messages(i, stage), max_new_tokens)
        if not arena.latest_code[i]:
            reply = arena.outputs[i][stage]
            if stage < 5:
                reply = _greedy(generator, tokenizer, arena.code_messages(i, stage, reply), max_new_tokens)
            arena.latest_code[i] = code_block(reply)
