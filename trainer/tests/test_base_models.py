"""Which weights a --base-model value names (no model is loaded here)."""

from pathlib import Path

import pytest

from stepwise_trainer.models import BaseModelError, resolve_base_model


def test_a_gguf_file_is_its_own_source(tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_base_model(str(gguf)).gguf == gguf


def test_a_stepwise_model_folder_trains_from_its_source_gguf(tmp_path: Path) -> None:
    (tmp_path / "gguf").mkdir()
    (tmp_path / "onnx").mkdir()
    (tmp_path / "config.json").write_text("{}")
    gguf = tmp_path / "gguf" / "qwen.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_base_model(str(tmp_path)).gguf == gguf


def test_a_hugging_face_folder_loads_with_from_pretrained(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"")
    source = resolve_base_model(str(tmp_path))
    assert source.folder == tmp_path and source.gguf is None


def test_two_ggufs_in_one_folder_ask_which(tmp_path: Path) -> None:
    (tmp_path / "gguf").mkdir()
    for name in ("a.gguf", "b.gguf"):
        (tmp_path / "gguf" / name).write_bytes(b"GGUF")
    with pytest.raises(BaseModelError, match="holds 2 GGUF files"):
        resolve_base_model(str(tmp_path))


def test_anything_else_names_the_accepted_forms(tmp_path: Path) -> None:
    with pytest.raises(BaseModelError, match="a .gguf file"):
        resolve_base_model(str(tmp_path / "missing"))
