"""Design constants shared with the extension, read from the one data file both sides use.

``protocol/design-constants.json`` at the repository root holds the reward weights alpha and beta
and the practice set's reliability thresholds; the extension reads the same file, so the two cannot
drift. An installed package carries a copy of it (``design_constants.json`` beside this module,
written by ``trainer/setup.py`` when the package is built); a source checkout or an editable install
reads the repository's file.
"""

from __future__ import annotations

import json
from pathlib import Path

_HERE = Path(__file__).resolve().parent
CANDIDATES = (_HERE / "design_constants.json", _HERE.parent.parent / "protocol" / "design-constants.json")


def constants_file() -> Path:
    """The design constants this package reads: its built-in copy, else the repository's file."""
    for candidate in CANDIDATES:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        "The design constants are missing: neither " + " nor ".join(str(c) for c in CANDIDATES) + " exists. "
        "Install the trainer from the Stepwise repository (pip install -e trainer, or the editor's 'Set up the trainer environment')."
    )


_CONSTANTS = json.loads(constants_file().read_text(encoding="utf-8"))

ALPHA: float = float(_CONSTANTS["rewards"]["alpha"])
BETA: float = float(_CONSTANTS["rewards"]["beta"])
RELIABILITY_THRESHOLDS: dict[str, float] = {k: float(v) for k, v in _CONSTANTS["practice"]["thresholds"].items()}
