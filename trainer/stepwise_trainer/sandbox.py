"""Runs tests against code through the project's own sandbox CLI (``stepwise sandbox``).

The trainer never executes model-written code itself: the CLI isolates it (bubblewrap, no
network, memory and process limits) exactly as the extension does.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CLI = str(Path(__file__).resolve().parents[2] / "bin" / "stepwise.js")


@dataclass
class SuiteResult:
    passed: int
    total: int

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


def count_tests(tests: str) -> int:
    """Top-level pytest functions in a tests file."""
    return len(re.findall(r"^def test_\w*\s*\(", tests, re.M))


class SandboxRunner:
    """``node CLI sandbox --code FILE --tests FILE --lang python --json`` as a function."""

    def __init__(self, cli: str = DEFAULT_CLI, node: str = "node", timeout_s: float = 60.0) -> None:
        if not Path(cli).exists():
            raise FileNotFoundError(
                f"The sandbox CLI {cli} does not exist. Build the extension (npm run build) so bin/stepwise.js works, or pass --sandbox-cli PATH."
            )
        self.cli, self.node, self.timeout_s = cli, node, timeout_s
        self.calls = 0

    def run(self, code: str, tests: str) -> SuiteResult:
        """Passed / total tests; a file without tests is not run (0 of 0)."""
        total = count_tests(tests)
        if total == 0:
            return SuiteResult(0, 0)
        with tempfile.TemporaryDirectory(prefix="stepwise-adv-") as tmp:
            code_file, tests_file = Path(tmp) / "solution.py", Path(tmp) / "tests.py"
            code_file.write_text(code, encoding="utf-8")
            tests_file.write_text(tests, encoding="utf-8")
            self.calls += 1
            proc = subprocess.run(
                [self.node, self.cli, "sandbox", "--code", str(code_file), "--tests", str(tests_file), "--lang", "python", "--json"],
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
            )
        try:
            summary = json.loads(proc.stdout)["summary"]
        except (json.JSONDecodeError, KeyError):
            raise RuntimeError(f"The sandbox CLI failed (exit {proc.returncode}): {proc.stderr.strip()[-500:] or proc.stdout[-500:]}") from None
        return SuiteResult(int(summary["passed"]), max(int(summary["total"]), total))
