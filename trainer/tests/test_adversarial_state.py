"""adversarial across phases: a role's optimizer keeps its moments from one phase to the next, and
only rank 0 writes a checkpoint. Both on the tiny model, without the sandbox."""

import json

import torch
from conftest import TINY_RL
from stepwise_trainer.jobs import adversarial
from stepwise_trainer.rewards import completion_text


def completion_length(prompts, completions, **_):
    return [len(completion_text(c)) / 100 for c in completions]


def _config(tmp_path, **options):
    data = tmp_path / "p.jsonl"
    data.write_text(json.dumps({"spec": "def f(x):\n    return x\n", "function_name": "f", "reference": "def f(x):\n    return x\n"}) + "\n")
    cli = tmp_path / "stepwise.js"
    cli.write_text("")  # the config only checks that the sandbox CLI exists; no phase here runs it
    return adversarial.AdversarialConfig(data=str(data), output_dir=str(tmp_path / "run"), sandbox_cli=str(cli), device="cpu", **{**TINY_RL, **options})


def test_a_roles_optimizer_carries_its_moments_from_one_phase_to_the_next(tmp_path, tiny_base):
    from datasets import Dataset
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    cfg = _config(tmp_path, base_model=str(tiny_base))
    model, tokenizer = load_causal_lm(str(tiny_base), torch.float32), load_tokenizer(str(tiny_base))
    optimizer = adversarial.role_optimizer(cfg, model)
    dataset = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Write f number {i}."}]} for i in range(2)])
    for phase in (1, 2):
        model = adversarial._train_phase(cfg, "cpu", model, tokenizer, dataset, [completion_length], 1, optimizer)
        steps = {int(state["step"]) for state in optimizer.state.values()}
        assert steps == {phase}, f"after phase {phase} Adam has taken {steps} step(s): its state was reset"
    saved = tmp_path / "optimizer.pt"
    torch.save(optimizer.state_dict(), saved)
    restored = adversarial.role_optimizer(cfg, model, saved)
    assert {int(s["step"]) for s in restored.state.values()} == {2}, "--resume loads the optimizer the checkpoint saved"
    assert adversarial.role_optimizer(_config(tmp_path, base_model=str(tiny_base), lora_r=4), model) is None


def test_only_rank_zero_writes_the_checkpoint(tmp_path, tiny_base, monkeypatch):
    from stepwise_trainer.models import load_causal_lm, load_tokenizer

    cfg = _config(tmp_path, base_model=str(tiny_base))
    arena = adversarial.Arena.__new__(adversarial.Arena)
    arena.suite, arena.latest_code, arena.outputs = [[]], [""], [{}]
    models = {"generator": load_causal_lm(str(tiny_base), torch.float32)}
    tokenizers = {"generator": load_tokenizer(str(tiny_base))}
    monkeypatch.setenv("RANK", "1")
    path = adversarial._save(cfg, 1, 0, models, tokenizers, arena, {"score": 0.0})
    assert not path.exists() and not (tmp_path / "run").exists()
    monkeypatch.setenv("RANK", "0")
    optimizers = {"generator": adversarial.role_optimizer(cfg, models["generator"])}
    path = adversarial._save(cfg, 1, 0, models, tokenizers, arena, {"score": 0.0}, optimizers)
    assert (path / "generator" / "config.json").exists() and (path / "generator" / adversarial.OPTIMIZER_FILE).exists()
