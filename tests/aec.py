"""Helpers for the environment's tests: acting by name, random games over the action mask,
seeded action spaces, observation slices, and the deals the tests stack.

Seats in the stacked deals: ``deal_order(hands, dealer, starter, stock)`` deals ``hands[seat]``
to each seat, turns ``starter`` and puts ``stock`` (top first) on the stock. The player left of
the dealer acts first unless the starter says otherwise."""

from __future__ import annotations

import numpy as np

from crates_env import crates_v0, parse_card
from crates_env.rules import PRESETS, player_counts

from .scripted import deal_order

ALL_CONFIGS = [(preset, n) for preset in PRESETS for n in player_counts(preset)]


AGENTS4 = ["player_0", "player_1", "player_2", "player_3"]


def act(env, text: str) -> None:
    """Step the acting agent with an action given by name."""
    env.step(env.unwrapped.encode_action(text))


def random_game(env, rng, on_step=None, seed=None, options=None) -> int:
    """Play one game with a random policy over the mask; ``on_step(env, agent, obs)`` sees every
    live agent before it acts. Returns the number of actions taken."""
    env.reset(seed=seed, options=options)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if on_step is not None:
            on_step(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


def kind_counts(codes: list[str]) -> np.ndarray:
    counts = np.zeros(53, dtype=np.float32)
    for code in codes:
        counts[parse_card(code)] += 1
    return counts


def seeded(env, seed: int = 0):
    """Seed every agent's action space: PettingZoo's api_test samples actions from them, so the
    test plays the same game every run."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    return env


def obs_slice(env, obs: np.ndarray, name: str) -> np.ndarray:
    start, stop = env.unwrapped.observation_layout()[name]
    return obs[start:stop]


# Crates, 4 players, one 1-card hand; dealer 2, so seat 3 acts first and goes out with QC on KC.
# Seat 0 keeps JD (10), seat 1 keeps 5H (30), seat 2 keeps AD (1): team 0 (seats 0 & 2) 11 points,
# team 1 (seats 1 & 3) 30 points.
ONE_CARD_DEAL = deal_order([["JD"], ["5H"], ["AD"], ["QC"]], dealer=2, starter="KC")


ONE_CARD_OPTIONS = {"deck": ONE_CARD_DEAL, "dealer": 2}


def one_card_env(**kwargs):
    kwargs.setdefault("deal_schedule", [1])
    env = crates_v0.env(**kwargs)
    env.reset(seed=0, options=ONE_CARD_OPTIONS)
    assert env.agent_selection == "player_3"
    assert env.unwrapped.game.action_names() == ["play QC"]
    return env


# four two-card hands for a dealer's wild starter (the dealer, seat 0, holds AC 2D)
STARTER_HANDS = [["AC", "2D"], ["KH", "QH"], ["5S", "6S"], ["7D", "JC"]]
