"""adversarial: the sandbox bridge on real code, and the alternating job on the tiny model."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import TINY_RL, run_job
from stepwise_trainer.sandbox import DEFAULT_CLI, InProcessVerdicts, SandboxRunner, code_block

needs_sandbox = pytest.mark.skipif(not Path(DEFAULT_CLI).exists() or shutil.which("node") is None, reason="bin/stepwise.js or node missing")

PROBLEMS = [
    {"spec": 'def add(a, b):\n    """Return a + b."""\n', "function_name": "add", "reference": "def add(a, b):\n    return a + b\n"},
    {"spec": 'def neg(x):\n    """Return -x."""\n', "function_name": "neg", "reference": "def neg(x):\n    return -x\n"},
]


def test_prompts_are_the_extensions_conversation_with_every_placeholder_filled():
    from stepwise_trainer.jobs.adversarial import STAGES_FILE, Arena

    chain = json.loads(STAGES_FILE.read_text(encoding="utf-8"))
    arena = Arena(PROBLEMS, {s["id"]: s for s in chain["stages"]}, SandboxRunner.__new__(SandboxRunner), chain["opening"])  # no sandbox call is made
    for stage in range(1, 6):
        generator = arena.generator_messages(0, stage)
        # Stages 1..s-1 are answered: their exchanges come first, frozen, then stage s's task.
        assert [m["role"] for m in generator] == ["user", "assistant"] * (stage - 1) + ["user"]
        assert [m["content"] for m in generator[1::2]] == [f"Reasoning {s}." for s in range(1, stage)]
        assert "Return a + b." in generator[0]["content"] and "`add`" in generator[0]["content"]
        # Before the generator has answered this stage, the test writer sees the chain so far.
        assert [m["role"] for m in arena.test_writer_messages(0, stage)] == ["user", "assistant"] * (stage - 1) + ["user"]
        arena.outputs[0][stage] = f"Reasoning {stage}." if stage < 5 else "```python\ndef add(a, b):\n    return a + b\n```"
        writer = arena.test_writer_messages(0, stage)
        # The test writer answers after this stage's exchange, as in the extension: at stage 5 it sees the code.
        assert writer[:-2] == generator and writer[-2] == {"role": "assistant", "content": arena.outputs[0][stage]}
        assert "tests" in writer[-1]["content"] and "Return a + b." not in writer[-1]["content"]
        code = arena.code_messages(0, stage, "Reasoning.")
        assert code[:-2] == generator and code[-2]["content"] == "Reasoning." and "implementation of `add`" in code[-1]["content"]
        for message in generator + writer + code:
            assert "{{" not in message["content"], message["content"]
    assert "return a + b" in arena.test_writer_messages(0, 5)[-2]["content"]


@needs_sandbox
def test_sandbox_runner_counts_passing_assertions_of_model_written_code():
    runner = SandboxRunner()
    tests = code_block("Tests:\n```python\nassert add(1, 2) == 3\nassert add(1, 1) == 3\n```")
    result = runner.run("def add(a, b):\n    return a + b\n", tests, "add")
    assert (result.passed, result.total, result.status) == (1, 2, "ok")
    broken = runner.run("def add(a, b) return", tests, "add")  # code that does not even parse
    assert broken.passed == 0 and broken.total == 2
    assert runner.run("def add(a, b):\n    return 0\n", "no tests here", "add").total == 0


FORGING_ADD = """import atexit, os
FAKE = '<testsuites><testsuite><testcase classname="test_0000" name="t"/><testcase classname="test_0001" name="t"/></testsuite></testsuites>'
atexit.register(lambda: open(os.path.join(os.environ.get("TMPDIR", "."), "report.xml"), "w").write(FAKE))
def add(a, b):
    return a - b
"""


@needs_sandbox
def test_wrong_code_that_forges_its_verdict_earns_no_reward():
    """Issue 16: `add = a - b` that wrote a passing report scored 2/2; the oracle judges it 0/2."""
    result = SandboxRunner().run(FORGING_ADD, "assert add(1, 2) == 3\nassert add(2, 2) == 4\n", "add")
    assert (result.passed, result.total) == (0, 2)


@needs_sandbox
def test_a_sandbox_that_does_not_answer_in_time_is_a_failed_timeout_not_a_crash():
    runner = SandboxRunner(timeout_s=3)
    result = runner.run("def add(a, b):\n    while True:\n        pass\n", "assert add(1, 2) == 3\n", "add")
    assert (result.passed, result.total, result.status) == (0, 1, "timeout")
    assert "did not answer" in result.message and runner.timeouts == 1
    assert result.pass_rate == 0.0


def test_verdicts_from_inside_the_process_under_test_are_refused(tmp_path):
    """A sandbox CLI that answers with in-process verdicts (an old build) never becomes a reward."""
    if shutil.which("node") is None:
        pytest.skip("node missing")
    old_cli = tmp_path / "old-cli.js"
    old_cli.write_text("process.stdout.write(JSON.stringify({verdicts: [], summary: {passed: 1, total: 1}, inProcess: true}));\n")
    with pytest.raises(InProcessVerdicts, match="never used as a reward"):
        SandboxRunner(cli=str(old_cli)).run("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n", "add")


def test_missing_sandbox_cli_is_a_clear_config_error(tmp_path):
    data = tmp_path / "p.jsonl"
    data.write_text(json.dumps(PROBLEMS[0]) + "\n")
    code, events, _ = run_job("adversarial", "--data", str(data), "--sandbox-cli", str(tmp_path / "nope.js"))
    assert code == 2 and "sandbox CLI" in events[-1]["message"]
    code, events, _ = run_job("adversarial", "--data", str(data), "--stages", "0,6")
    assert code == 2 and "stages" in events[-1]["message"]


@needs_sandbox
@pytest.mark.slow
def test_adversarial_alternates_roles_scores_checkpoints_and_resumes(tmp_path, tiny_base):
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps(p) for p in PROBLEMS) + "\n")
    out = tmp_path / "run"
    common = [
        "--base-model",
        str(tiny_base),
        "--data",
        str(data),
        "--output-dir",
        str(out),
        "--stages",
        "5",
        "--n-steps",
        "1",
        "--batch-size",
        "2",
        "--num-generations",
        "2",
        "--max-completion-length",
        "8",
        "--learning-rate",
        "1e-3",
        "--max-length",
        "1024",
    ]
    code, events, stderr = run_job("adversarial", *common, "--k-rounds", "1")
    assert code == 0, stderr[-3000:]
    roles = [e["message"].split(": ")[1].split(" ")[0] for e in events if e["type"] == "progress" and "message" in e]
    assert roles == ["test-writer", "generator", "generator"]
    checkpoints = [e for e in events if e["type"] == "checkpoint"]
    assert [c["step"] for c in checkpoints] == [1, 2, 3]
    latest = out / "checkpoints" / (out / "checkpoints" / "latest").read_text().strip()
    meta = json.loads((latest / "meta.json").read_text())
    assert meta["score"] == pytest.approx(0.7 * meta["generatorReward"] + 0.3 * meta["testValidity"])
    assert (latest / "generator" / "config.json").exists() and (latest / "test_writer" / "config.json").exists()
    best = (out / "checkpoints" / "best").read_text().strip()
    assert events[-1]["output"] == str(out / "checkpoints" / best / "generator")
    # K = 3 adds two alternating rounds (test writer, generator); resume runs only those.
    code, events, stderr = run_job("adversarial", *common, "--k-rounds", "3", "--resume")
    assert code == 0, stderr[-3000:]
    assert [e["step"] for e in events if e["type"] == "checkpoint"] == [4, 5]


@needs_sandbox
@pytest.mark.slow
def test_both_roles_learn_when_an_extra_reward_differs_within_a_group(tmp_path, tiny_base):
    """The random tiny model writes no runnable tests or code, so the sandbox rewards tie within
    every group (advantage 0); a test-only extra reward on completion length makes both phases'
    GRPO updates visible in the checkpoints."""
    import io

    import torch
    from safetensors.torch import load_file
    from stepwise_trainer.events import EventWriter
    from stepwise_trainer.jobs import adversarial
    from stepwise_trainer.rewards import completion_text

    def completion_length(prompts, completions, **_):
        return [len(completion_text(c)) / 100 for c in completions]

    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps(p) for p in PROBLEMS) + "\n")
    out = tmp_path / "run"
    cfg = adversarial.AdversarialConfig(
        base_model=str(tiny_base),
        data=str(data),
        output_dir=str(out),
        stages="5",
        n_steps=1,
        k_rounds=0,
        **TINY_RL,
        device="cpu",
    )
    adversarial.run(cfg, EventWriter("adversarial", stream=io.StringIO()), extra_rewards=[completion_length])

    def changed(role: str, step: int) -> list[str]:
        before, after = load_file(str(tiny_base / "model.safetensors")), load_file(str(out / "checkpoints" / f"step-{step:06d}" / role / "model.safetensors"))
        return [k for k in before if k in after and not torch.equal(before[k], after[k])]

    assert changed("test_writer", 1), "the test writer's phase changed no parameter"
    assert not changed("generator", 1), "the generator trained during the test writer's phase"
    assert changed("generator", 2), "the generator's phase changed no parameter"


DEEP_LINE = "assert add(1, 2) == " + "[" * 2000 + "]" * 2000


@needs_sandbox
def test_a_2000_deep_assertion_line_is_rejected_and_the_others_still_count():
    """Issue 40: one line of 2,000 nested brackets crashed the CLI, and the test-writer reward raised."""
    result = SandboxRunner().run("def add(a, b):\n    return a + b\n", f"{DEEP_LINE}\nassert add(1, 2) == 3\n", "add")
    assert (result.passed, result.total, result.status) == (1, 1, "ok")


def test_a_sandbox_cli_that_fails_on_one_input_is_an_error_verdict_not_a_crash(tmp_path):
    """Whatever one reply makes the CLI do, the reward gets a verdict and training goes on; a CLI
    that fails on every call in a row is a broken set-up and says so."""
    if shutil.which("node") is None:
        pytest.skip("node missing")
    cli = tmp_path / "crashing-cli.js"
    cli.write_text("process.stderr.write('RangeError: Maximum call stack size exceeded\\n'); process.exit(1);\n")
    runner = SandboxRunner(cli=str(cli))
    result = runner.run("def add(a, b):\n    return a + b\n", f"{DEEP_LINE}\nassert add(1, 2) == 3\n", "add")
    assert (result.passed, result.total, result.status) == (0, 2, "error")
    assert "Maximum call stack" in result.message and runner.errors == 1
    runner.run("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n", "add")
    with pytest.raises(RuntimeError, match="failed on 3 calls in a row"):
        runner.run("def add(a, b):\n    return a + b\n", "assert add(1, 2) == 3\n", "add")
