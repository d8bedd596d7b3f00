"""The trainer's events match protocol/trainer-events.schema.json; checkpoints and config rules."""

import io
import json
import os

import pytest
from conftest import REPO
from stepwise_trainer.checkpoints import checkpoint_name, checkpoints_dir, latest_checkpoint, point_latest, write_meta
from stepwise_trainer.config import ConfigError, load_config
from stepwise_trainer.events import EventWriter
from stepwise_trainer.jobs.grpo import GrpoConfig
from stepwise_trainer.jobs.prm import PrmConfig

SCHEMA = json.loads((REPO / "protocol" / "trainer-events.schema.json").read_text())
TYPES = {"string": str, "number": (int, float), "integer": int, "object": dict}


def conforms(event: dict) -> bool:
    """The subset of JSON Schema the protocol file uses: const type, required, closed properties."""
    for variant in SCHEMA["oneOf"]:
        props = variant["properties"]
        if props["type"]["const"] != event.get("type"):
            continue
        return (
            set(variant["required"]) <= set(event)
            and set(event) <= set(props)
            and all(k == "type" or isinstance(v, TYPES[props[k]["type"]]) for k, v in event.items())
        )
    return False


def test_every_event_the_writer_emits_conforms_to_the_schema():
    out = io.StringIO()
    w = EventWriter("prm", stream=out)
    w.progress(1, 10, "step")
    w.metric(1, {"loss": 0.5, "nan": float("nan")})
    w.checkpoint(1, "/x/step-000001")
    w.done("/x/final", {"after/f1": 0.8}, onnx="/x/onnx")
    w.error("boom", "do this")
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e["type"] for e in events] == ["progress", "metric", "checkpoint", "done", "error"]
    assert all(conforms(e) for e in events), events
    assert events[1]["data"] == {"loss": 0.5}  # NaN is not JSON: dropped, not written


def test_latest_pointer_names_only_complete_checkpoints(tmp_path):
    checkpoints_dir(tmp_path).mkdir()
    assert latest_checkpoint(tmp_path) is None
    first = checkpoints_dir(tmp_path) / checkpoint_name(50)
    first.mkdir()
    write_meta(first, 50, "prm")
    point_latest(tmp_path, first)
    assert first.name == "step-000050" and latest_checkpoint(tmp_path) == first
    half_written = checkpoints_dir(tmp_path) / checkpoint_name(100)
    half_written.mkdir()  # a crash before meta.json: the pointer never moved
    assert latest_checkpoint(tmp_path) == first
    assert not [p for p in os.listdir(checkpoints_dir(tmp_path)) if p.endswith(".tmp")]


def test_flags_override_yaml_and_unknown_yaml_keys_are_named(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("{}\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"data: {data}\nmax_steps: 7\nlearning_rate: 0.001\n")
    cfg = load_config(PrmConfig, ["--config", str(config), "--max-steps", "3"])
    assert (cfg.max_steps, cfg.learning_rate) == (3, 0.001)
    config.write_text("max_stpes: 7\n")
    with pytest.raises(ConfigError, match="max_stpes"):
        load_config(PrmConfig, ["--config", str(config)])


def test_every_config_field_has_help():
    import dataclasses

    from stepwise_trainer.jobs import adversarial, dpo, export, grpo, orm, prm, question_generator, rm_compare, sft_format, verifier

    configs = (prm.PrmConfig, orm.OrmConfig, rm_compare.RmCompareConfig, sft_format.SftFormatConfig, verifier.VerifierConfig, grpo.GrpoConfig)
    for cls in (*configs, dpo.DpoConfig, question_generator.QuestionGeneratorConfig, adversarial.AdversarialConfig, export.ExportConfig):
        assert all(f.metadata.get("help") for f in dataclasses.fields(cls)), cls.__name__


def test_help_names_each_default_once(capsys):
    """--help is how a person learns the options; each states its real default, once."""
    with pytest.raises(SystemExit):
        load_config(GrpoConfig, ["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text
    assert "The design uses 4. (default: 4)" in text
    assert "names. (default: False)" in text


def test_grpo_config_explains_the_divisibility_rule(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("{}\n")
    with pytest.raises(ConfigError, match="--batch-size 4"):
        GrpoConfig(data=str(data), batch_size=6, num_generations=4)
    with pytest.raises(ConfigError, match="alpha"):
        GrpoConfig(data=str(data), batch_size=4, alpha=0.9, beta=0.24)
