"""Before and after the adversarial schedule: how good the generator's code and the test writer's
tests are, measured the same way both times (``adversarial --measure``).

For every problem, the generator answers stage 5's code task greedily with no chain before it, and
its code runs against the problem's own tests (HumanEval's ``check``, one assertion per line): the
pass rate. The test writer then writes stage 5's tests greedily against that code, and they run
against the reference solution: validity is the share the reference passes, the design's measure of
a test that asserts what the specification says. These are the training problems themselves (the
schedule has no held-out split), so the figures say whether training moved the two roles on what
they trained on, not how far that carries.
"""

from __future__ import annotations

from typing import Any

from ..sandbox import code_block
from .adversarial_arena import Arena, _greedy


def measure(arena: Arena, models: dict[str, Any], tokenizers: dict[str, Any], max_new_tokens: int) -> dict[str, float]:
    """Mean pass rate on the problems' own tests, mean validity of the written tests, and how many
    tests were written (a reply with no assertion line has validity 0)."""
    pass_rates, validities, written = [], [], 0
    for i, problem in enumerate(arena.problems):
        name = problem["function_name"]
        reply = _greedy(models["generator"], tokenizers["generator"], arena.fresh_code_messages(i), max_new_tokens)
        if problem.get("tests"):
            pass_rates.append(arena.sandbox.run(code_block(reply), problem["tests"], name).pass_rate)
        tests = code_block(_greedy(models["test_writer"], tokenizers["test_writer"], arena.fresh_test_messages(i, reply), max_new_tokens))
        on_reference = arena.sandbox.run(problem["reference"], tests, name)
        written += on_reference.total
        validities.append(on_reference.pass_rate)
    out = {"test_validity": sum(validities) / len(validities), "tests_written": float(written)}
    if pass_rates:
        out["pass_rate"] = sum(pass_rates) / len(pass_rates)
    return out
