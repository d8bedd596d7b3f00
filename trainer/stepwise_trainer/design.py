"""Design constants shared with the extension, read from the one data file both sides use.

``design_constants.json`` (beside this module) holds the reward weights alpha and beta and the
practice set's reliability thresholds; the extension reads the same file, so the two cannot drift.
"""

from __future__ import annotations

import json
from pathlib import Path

_CONSTANTS = json.loads(Path(__file__).with_name("design_constants.json").read_text(encoding="utf-8"))

ALPHA: float = float(_CONSTANTS["rewards"]["alpha"])
BETA: float = float(_CONSTANTS["rewards"]["beta"])
RELIABILITY_THRESHOLDS: dict[str, float] = {k: float(v) for k, v in _CONSTANTS["practice"]["thresholds"].items()}
