"""What an exported model folder must hold, checked without importing torch.

Kept apart from `onnx_export` so that "is the model already built?" answers in
milliseconds (build scripts call it on every set-up).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPORT_FILE = "stepwise_export.json"
ONNX_FILES = {"fp32": "model.onnx", "q8": "model_quantized.onnx", "q4": "model_q4.onnx"}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


class ExportError(RuntimeError):
    """The export or its verification failed; the message says what differed."""


class ExportFolderError(ExportError):
    """A folder does not hold a complete, verified export."""


def check_export_folder(out_dir: str | os.PathLike) -> dict[str, Any]:
    """The folder's report when it holds a complete, verified export; else `ExportFolderError`."""
    out = Path(out_dir)
    if not out.is_dir():
        raise ExportFolderError(f"model folder {out} does not exist; build it (scripts/build-default-model.sh)")
    report_path = out / REPORT_FILE
    if not report_path.exists():
        raise ExportFolderError(f"{out} has no {REPORT_FILE}: the export did not finish or was not verified; rebuild the folder")
    try:
        report = json.loads(report_path.read_text())
    except (OSError, ValueError) as err:
        raise ExportFolderError(f"{report_path} is not valid JSON ({err}); rebuild the folder") from err
    if not isinstance(report, dict) or report.get("verified") is not True or not isinstance(report.get("files"), dict):
        raise ExportFolderError(f"{report_path} does not describe a verified export; rebuild the folder")
    needed = ["config.json", *TOKENIZER_FILES, *report["files"].values()]
    missing = [name for name in needed if not (out / name).is_file()]
    if missing:
        raise ExportFolderError(f"{out} is incomplete, missing: {', '.join(missing)}; rebuild the folder")
    for name, size in report.get("file_sizes", {}).items():
        path = out / report["files"].get(name, "")
        if path.is_file() and path.stat().st_size != size:
            raise ExportFolderError(f"{path} has {path.stat().st_size} bytes but the export wrote {size}: the file is corrupt; rebuild the folder")
    return report
