"""The trainer reads the design constants from the file the extension reads too."""

import json
from pathlib import Path

from stepwise_trainer import rewards
from stepwise_trainer.design import ALPHA, BETA, RELIABILITY_THRESHOLDS
from stepwise_trainer.jobs.dpo import DpoConfig

SHARED = json.loads((Path(rewards.__file__).with_name("design_constants.json")).read_text())


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
