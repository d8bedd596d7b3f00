"""Runs assertion tests against code through the project's own sandbox CLI (``stepwise sandbox``).

The trainer never executes model-written code itself: the CLI isolates it (bubblewrap, no
network, memory and process limits) exactly as the extension does. Tests are the test writer's
assertion lines (``assert f(1, 2) == 3``), judged by the CLI's oracle runner in the host: the code
under test never sees an expected value, so it cannot forge a pass. Verdicts that came from
inside the process under test (``inProcess``) are refused: they are never a reward.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: CLI failures in a row after which the CLI itself, not one reply, is taken to be broken.
MAX_FAILURES_IN_A_ROW = 3

DEFAULT_CLI = str(Path(__file__).resolve().parents[2] / "bin" / "stepwise.js")


class InProcessVerdicts(RuntimeError):
    """The sandbox answered with verdicts the code under test could have written itself."""


@dataclass
class SuiteResult:
    passed: int
    total: int
    #: "ok"; "timeout" when the sandbox did not answer in time, "error" when it failed on this input
    #: (every test then counts as failed).
    status: str = "ok"
    message: str = ""

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


def code_block(text: str) -> str:
    """The first fenced code block of a model reply, else the whole reply. Never raises.

    >>> code_block("Here:\\n```python\\ndef f():\\n    return 1\\n```\\nDone.")
    'def f():\\n    return 1'
    """
    match = re.search(r"```[a-zA-Z0-9_+-]*\n([\s\S]*?)(```|$)", text or "")
    return (match.group(1) if match else (text or "")).strip()


def count_assertions(tests: str) -> int:
    """Lines that look like single assertions (the CLI decides which are admitted).

    >>> count_assertions("assert f(1) == 2\\nwith pytest.raises(ValueError): f(-1)\\nprint(1)")
    2
    """
    return len(re.findall(r"^\s*(assert\b|with\s+pytest\.raises\b)", tests, re.M))


class SandboxRunner:
    """``node CLI sandbox --code FILE --assertions FILE --function NAME --lang python --json`` as a function."""

    def __init__(self, cli: str = DEFAULT_CLI, node: str = "node", timeout_s: float = 90.0) -> None:
        if not Path(cli).exists():
            raise FileNotFoundError(
                f"The sandbox CLI {cli} does not exist. Build the extension (npm run build) so bin/stepwise.js works, or pass --sandbox-cli PATH."
            )
        self.cli, self.node, self.timeout_s = cli, node, timeout_s
        self.calls = 0
        self.timeouts = 0
        self.errors = 0
        self._failed_in_a_row = 0

    def _command(self, code_file: Path, tests_file: Path, function_name: str) -> list[str]:
        # The CLI's own suite limit sits well inside ours, so it normally answers with its verdicts.
        suite_ms = max(5_000, int((self.timeout_s - 20) * 1000))
        return [
            self.node,
            self.cli,
            "sandbox",
            "--code",
            str(code_file),
            "--assertions",
            str(tests_file),
            "--function",
            function_name,
            "--lang",
            "python",
            "--suite-timeout-ms",
            str(suite_ms),
            "--json",
        ]

    def _run_cli(self, command: list[str]) -> tuple[int | None, str, str]:
        """The CLI's exit code and output; None when it ran past the limit (then stopped, and cleaned up)."""
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=self.timeout_s)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            # SIGTERM first: the CLI removes its sandbox folders and processes before it exits.
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                out, err = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
            return None, out, err

    def run(self, code: str, tests: str, function_name: str) -> SuiteResult:
        """Passed / admitted tests. A reply without assertion lines is not run (0 of 0); a sandbox
        that does not answer in time counts every test as failed (status "timeout")."""
        expected_lines = count_assertions(tests)
        if expected_lines == 0:
            return SuiteResult(0, 0)
        with tempfile.TemporaryDirectory(prefix="stepwise-adv-") as tmp:
            code_file, tests_file = Path(tmp) / "solution.py", Path(tmp) / "tests.txt"
            code_file.write_text(code, encoding="utf-8")
            tests_file.write_text(tests, encoding="utf-8")
            self.calls += 1
            code_, out, err = self._run_cli(self._command(code_file, tests_file, function_name))
        if code_ is None:
            self.timeouts += 1
            return SuiteResult(0, expected_lines, "timeout", f"The sandbox did not answer within {self.timeout_s:.0f} s; every test counts as failed.")
        try:
            answer = json.loads(out)
            summary = answer["summary"]
        except (json.JSONDecodeError, KeyError, TypeError):
            # One reply can make the CLI fail (a bug its input found): that reply scores nothing and
            # training goes on. Failing on every call in a row is a broken set-up, not an input.
            self.errors += 1
            self._failed_in_a_row += 1
            message = f"The sandbox CLI failed (exit {code_}): {err.strip()[-500:] or out[-500:]}"
            if self._failed_in_a_row >= MAX_FAILURES_IN_A_ROW:
                raise RuntimeError(f"{message} It failed on {self._failed_in_a_row} calls in a row; check that it is built (npm run build).") from None
            return SuiteResult(0, expected_lines, "error", f"{message} Every test counts as failed.")
        self._failed_in_a_row = 0
        if answer.get("inProcess") is not False:
            raise InProcessVerdicts(
                "The sandbox CLI answered with verdicts from inside the process under test (or did not say where they came from); "
                "they can be forged and are never used as a reward. Rebuild the CLI (npm run build) so it judges assertion tests in the host."
            )
        return SuiteResult(int(summary["passed"]), int(summary["total"]))
