"""adversarial --measure: pass rate on the problems' own tests and validity of the written tests, on the real sandbox."""

import json
import shutil
from pathlib import Path

import pytest
from stepwise_trainer.jobs import adversarial_measure
from stepwise_trainer.jobs.adversarial import STAGES_FILE
from stepwise_trainer.jobs.adversarial_arena import Arena, load_problems
from stepwise_trainer.sandbox import DEFAULT_CLI, SandboxRunner

needs_sandbox = pytest.mark.skipif(not Path(DEFAULT_CLI).exists() or shutil.which("node") is None, reason="bin/stepwise.js or node missing")

HUMANEVAL_ROW = {
    "prompt": 'def add(a, b):\n    """Return a + b."""\n',
    "entry_point": "add",
    "canonical_solution": "    return a + b\n",
    "test": "\n\ndef check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(\n        2, 2) == 4\n    assert candidate(0, 0) == 0\n",
}


def test_humaneval_rows_keep_their_one_line_assertions_as_the_reference_tests(tmp_path):
    data = tmp_path / "he.jsonl"
    data.write_text(json.dumps(HUMANEVAL_ROW) + "\n")
    [problem] = load_problems(str(data))
    # The multi-line assertion is left out: the sandbox's oracle reads one assertion per line.
    assert problem["tests"] == "assert add(1, 2) == 3\nassert add(0, 0) == 0"


@needs_sandbox
def test_measure_runs_the_generators_code_on_the_reference_tests_and_the_written_tests_on_the_reference(tmp_path, monkeypatch):
    data = tmp_path / "he.jsonl"
    data.write_text(json.dumps(HUMANEVAL_ROW) + "\n")
    chain = json.loads(STAGES_FILE.read_text(encoding="utf-8"))
    arena = Arena(load_problems(str(data)), {s["id"]: s for s in chain["stages"]}, SandboxRunner(), chain["opening"])
    replies = {
        # The generator's code is wrong on one of the two reference tests.
        "generator": "```python\ndef add(a, b):\n    return a + b if a else 1\n```",
        # One of the writer's two tests asserts something the specification does not say.
        "test_writer": "```python\nassert add(2, 3) == 5\nassert add(1, 1) == 3\n```",
    }
    seen: list[list[dict[str, str]]] = []

    def scripted(model, tokenizer, messages, max_new_tokens):
        seen.append(messages)
        return replies[model]

    monkeypatch.setattr(adversarial_measure, "_greedy", scripted)
    figures = adversarial_measure.measure(arena, {r: r for r in replies}, {r: None for r in replies}, 64)
    assert figures == {"pass_rate": 0.5, "test_validity": 0.5, "tests_written": 2.0}
    # The test writer is shown the generator's code as stage 5's answer.
    assert seen[1][-2] == {"role": "assistant", "content": replies["generator"]}
