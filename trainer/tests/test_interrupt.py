"""An interrupted job saves the step it reached, says so, exits 130, and --resume continues from it."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import run_job
from stepwise_trainer.interrupt import StopRequest
from test_events import conforms


def test_the_first_signal_is_recorded_and_the_second_aborts_at_once():
    before = signal.getsignal(signal.SIGINT)
    request = StopRequest()
    request.listen()
    try:
        signal.raise_signal(signal.SIGTERM)
        assert request.requested and request.signal_name == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    finally:
        request.stop_listening()
    assert signal.getsignal(signal.SIGINT) is before


def _interrupt_after_step(cmd: list[str], step: int, stderr_file, timeout: float = 300) -> tuple[int, list[dict]]:
    """Starts the job, sends SIGINT (as the extension's Cancel does) once it reports `step`, and
    returns the exit code with every event it wrote."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr_file, text=True)
    events: list[dict] = []
    deadline = time.monotonic() + timeout
    try:
        for line in proc.stdout:  # any non-JSON line on stdout fails the test here
            events.append(json.loads(line))
            if events[-1]["type"] == "progress" and events[-1]["step"] >= step:
                proc.send_signal(signal.SIGINT)
                break
            assert time.monotonic() < deadline, "the job never reached the step"
        events += [json.loads(line) for line in proc.stdout]
        return proc.wait(timeout=timeout), events
    finally:
        if proc.poll() is None:
            proc.kill()


def test_an_interrupted_prm_run_saves_the_current_step_and_resumes_from_it(tmp_path, tiny_base, trl_labels):
    out = tmp_path / "run"
    common = ["--base-model", str(tiny_base), "--data", str(trl_labels), "--output-dir", str(out), "--batch-size", "2", "--learning-rate", "1e-3"]
    # Regular saves and the end of training are out of reach: only the interrupt can save.
    cmd = [sys.executable, "-m", "stepwise_trainer", "prm", *common, "--max-steps", "100000", "--save-steps", "100000"]
    with open(tmp_path / "stderr.log", "w") as log:
        code, events = _interrupt_after_step(cmd, 2, log)
    stderr = (tmp_path / "stderr.log").read_text()
    assert code == 130, stderr[-3000:]
    assert all(conforms(e) for e in events), events

    checkpoints = [e for e in events if e["type"] == "checkpoint"]
    assert len(checkpoints) == 1, checkpoints
    step = checkpoints[0]["step"]
    assert step >= 2
    error = events[-1]
    assert error["type"] == "error" and f"interrupted (SIGINT) at step {step}" in error["message"], error
    assert "--resume" in error["hint"]
    assert not any(e["type"] == "done" for e in events)
    assert not any(any(k.startswith("after/") for k in e["data"]) for e in events if e["type"] == "metric"), "the after-training evaluation ran"
    assert not (out / "final").exists(), "the final save ran"

    latest = out / "checkpoints" / (out / "checkpoints" / "latest").read_text().strip()
    assert latest.name == f"step-{step:06d}" and str(latest) == checkpoints[0]["path"]
    assert json.loads((latest / "meta.json").read_text())["step"] == step
    assert {"model.safetensors", "optimizer.pt", "trainer_state.json"} <= set(os.listdir(latest))
    assert not list((out / "checkpoints").glob("checkpoint-*")), "the Trainer's folder was not renamed"

    code, events, stderr = run_job("prm", *common, "--max-steps", str(step + 2), "--save-steps", "100000", "--resume")
    assert code == 0, stderr[-3000:]
    trained = [e["step"] for e in events if e["type"] == "progress" and e["step"] > 0]
    assert trained == [step + 1, step + 2], f"resumed run should continue after step {step}, saw {trained}"
    assert events[-1]["type"] == "done"
