"""Seed 001 reliability metrics and seed 002 schedule / checkpoint maths, on plain numbers."""

import pytest
from stepwise_trainer import algorithms
from stepwise_trainer.algorithms import adversarial_schedule, agreement_rate, auroc, checkpoint_score, passes_reliability, score_consistency, separation
from stepwise_trainer.jobs.dpo import reliable_pairs


def test_consistent_judge_scores_give_full_consistency_and_noisy_ones_less():
    assert score_consistency([[0.5, 0.5, 0.5], [1, 1, 1]]) == 1.0
    assert score_consistency([[0, 1], [0, 1]]) == pytest.approx(0.75)


def test_separation_and_stability_of_a_reliable_question():
    assert separation([0.9, 1.0], [0.1, 0.2]) == pytest.approx(0.8)
    assert agreement_rate(["a"] * 5) == 1.0
    assert passes_reliability(0.9, 0.8, 1.0, (0.8, 0.1, 0.7))
    assert not passes_reliability(0.9, 0.05, 1.0, (0.8, 0.1, 0.7))


def test_dpo_filter_keeps_pairs_of_reliable_questions_only():
    rows = [{"r_cons": 0.9, "r_sep": 0.5, "r_stab": 0.9}, {"r_cons": 0.9, "r_sep": None, "r_stab": 0.9}, {"r_cons": 0.5, "r_sep": 0.5, "r_stab": 0.9}]
    kept, dropped = reliable_pairs(rows, (0.8, 0.1, 0.7))
    assert kept == rows[:1] and dropped == 2


def test_checkpoint_score_weights_generator_reward_over_test_validity():
    assert checkpoint_score(1.0, 0.0) == pytest.approx(0.7)
    assert checkpoint_score(0.0, 1.0) == pytest.approx(0.3)
    assert algorithms.test_writer_reward(0.25, 0.5, total=4) == pytest.approx(0.375)


def test_schedule_runs_every_stage_in_order_with_n_n_k_phases():
    phases = adversarial_schedule([1, 2, 3, 4, 5], n=3, k=2)
    assert [p[0] for p in phases] == [s for s in range(1, 6) for _ in range(4)]
    assert phases[:4] == [(1, "test-writer", 3), (1, "generator", 3), (1, "generator", 1), (1, "test-writer", 1)]


def test_auroc_of_reversed_scores_is_zero():
    assert auroc([0.1, 0.2, 0.9], [1, 1, 0]) == 0.0
