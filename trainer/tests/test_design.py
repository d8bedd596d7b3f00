"""The trainer reads the design constants from the file the extension reads too (protocol/)."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from stepwise_trainer import design, rewards
from stepwise_trainer.design import ALPHA, BETA, RELIABILITY_THRESHOLDS
from stepwise_trainer.jobs.dpo import DpoConfig

REPO = Path(__file__).resolve().parents[2]
SHARED_FILE = REPO / "protocol" / "design-constants.json"
SHARED = json.loads(SHARED_FILE.read_text())


def test_a_source_checkout_reads_the_repository_file():
    assert design.constants_file() == SHARED_FILE


def test_reward_weights_come_from_the_shared_file():
    assert (ALPHA, BETA) == (SHARED["rewards"]["alpha"], SHARED["rewards"]["beta"])
    # R = R_format * (alpha * R_Y + beta * R_Z): a perfect, well-calibrated answer earns alpha + beta.
    assert rewards.self_verification_reward(1, 1.0, 1.0, 1.0) == ALPHA + BETA


def test_dpo_thresholds_default_to_the_shared_reliability_thresholds(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("")
    cfg = DpoConfig(data=str(pairs))
    assert (cfg.min_r_cons, cfg.min_r_sep, cfg.min_r_stab) == tuple(SHARED["practice"]["thresholds"][k] for k in ("cons", "sep", "stab"))
    assert RELIABILITY_THRESHOLDS == SHARED["practice"]["thresholds"]


def test_a_built_package_carries_the_shared_file(tmp_path):
    # The layout the editor's trainer setup builds from: trainer/ and protocol/ side by side.
    shutil.copytree(REPO / "trainer", tmp_path / "trainer", ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build"))
    (tmp_path / "protocol").mkdir()
    shutil.copy(SHARED_FILE, tmp_path / "protocol" / SHARED_FILE.name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            str(tmp_path / "trainer"),
            "-w",
            str(tmp_path / "wheel"),
        ],
        check=True,
        capture_output=True,
    )
    [wheel] = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert json.loads(z.read("stepwise_trainer/design_constants.json")) == SHARED
