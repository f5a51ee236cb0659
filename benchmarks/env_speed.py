"""Environment speed, side by side in one run: random legal play, observation and mask every step.

    pip install -e ".[bench]"      # OpenSpiel and RLCard, for the peers
    python benchmarks/env_speed.py --seconds 10

Each contender plays whole games with a uniformly random legal action at every decision and
builds the acting player's observation and legal-action mask at every step:

- ``crates_v0``: our AEC environment as users get it (``crates_v0.env()``: PettingZoo's
  order-enforcing and bounds wrappers), 4-player ``crates``, through ``agent_iter``/``last``.
- ``crates_v0 raw_env``: the same without PettingZoo's wrappers, to show what they cost.
- ``openspiel``: OpenSpiel's C++ ``crazy_eights`` (4 players) through pyspiel, with
  ``observation_tensor`` and ``legal_actions`` every step (chance outcomes sampled).
- ``rlcard-uno``: RLCard's UNO (4 players; its ``step`` returns the next state's observation).
- ``pettingzoo-texas``: PettingZoo's classic ``texas_holdem_v4`` (4 players), via ``last``.

A peer that is not installed is reported as skipped. Steps are decisions (chance nodes of
OpenSpiel are not counted). The ratio column divides each rate by OpenSpiel's.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def run_for(seconds: float, play_game: Callable[[int], int]) -> tuple[int, int, float]:
    """Play whole games until ``seconds`` pass; return (games, steps, elapsed)."""
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_game(games)
        games += 1
    return games, steps, time.perf_counter() - start


def pettingzoo_game(make_env: Callable[[], object]) -> Callable[[int], int]:
    env = make_env()
    rng = np.random.default_rng(0)

    def play(seed: int) -> int:
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return play


def crates_game() -> Callable[[int], int]:
    from crates_env import crates_v0

    return pettingzoo_game(lambda: crates_v0.env(preset="crates", num_players=4))


def crates_raw_game() -> Callable[[int], int]:
    from crates_env import crates_v0

    return pettingzoo_game(lambda: crates_v0.raw_env(preset="crates", num_players=4))


def texas_game() -> Callable[[int], int]:
    from pettingzoo.classic import texas_holdem_v4

    return pettingzoo_game(lambda: texas_holdem_v4.env(num_players=4))


def openspiel_game() -> Callable[[int], int]:
    import pyspiel

    game = pyspiel.load_game("crazy_eights", {"players": 4})
    rng = random.Random(0)

    def play(_seed: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(rng.choice(legal))
            steps += 1
        return steps

    return play


def rlcard_uno_game() -> Callable[[int], int]:
    import rlcard

    env = rlcard.make("uno", config={"game_num_players": 4, "seed": 0})
    rng = random.Random(0)

    def play(_seed: int) -> int:
        state, _player = env.reset()
        steps = 0
        while not env.is_over():
            state, _player = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
        return steps

    return play


CONTENDERS = {
    "crates_v0": crates_game,
    "crates_v0 raw_env": crates_raw_game,
    "openspiel": openspiel_game,
    "rlcard-uno": rlcard_uno_game,
    "pettingzoo-texas": texas_game,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per contender")
    args = parser.parse_args(argv)
    rates: dict[str, float] = {}
    rows = []
    for name, make in CONTENDERS.items():
        try:
            play = make()
        except ImportError as exc:
            rows.append(
                f"  {name:<18} skipped ({exc.name} not installed: pip install -e '.[bench]')"
            )
            continue
        play(0)  # warm up
        games, steps, elapsed = run_for(args.seconds, play)
        rates[name] = steps / elapsed
        rows.append((name, games, steps, elapsed))
    base = rates.get("openspiel")
    print(f"environment speed, one core, {args.seconds:g} s each (Python {sys.version.split()[0]})")
    print(f"  {'contender':<18} {'games':>7} {'steps':>10} {'steps/s':>10} {'vs OpenSpiel':>13}")
    for row in rows:
        if isinstance(row, str):
            print(row)
            continue
        name, games, steps, elapsed = row
        ratio = f"{rates[name] / base:.2f}x" if base else "-"
        print(f"  {name:<18} {games:>7,} {steps:>10,} {rates[name]:>10,.0f} {ratio:>13}")


if __name__ == "__main__":
    main()
