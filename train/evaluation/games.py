"""The games of an evaluation: agents against each other on the same cards, seats rotated.

Every deal (a seed that fixes the cards of every hand of a game) is replayed once per *lineup*:
the agents are seated cyclically (seat ``s`` gets agent ``(s + r) mod k``) for every rotation
``r`` that gives a different seating, so each agent holds each seat's cards and the luck of the
deal cancels out, as bridge players score duplicate. Statistics are paired by deal.

Each game is seeded from ``(seed, deal, lineup, seat)`` alone, so results are identical whatever
the number of worker processes.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import Table, decide, make_agent
from crates_env.actions import DRAW
from crates_env.env import play_seats, raw_env
from crates_env.game import Game
from crates_env.payouts import final_standing
from train.workers import serve_parent


@dataclass(frozen=True)
class EvalConfig:
    """What to play: agent specs (names or checkpoint paths), rules, number of deals, seed, and
    where: ``workers`` processes here, or Ray tasks (``ray``)."""

    agents: tuple[str, ...]
    preset: str = "crates"
    num_players: int = 4
    deals: int = 100
    seed: int = 0
    workers: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    # None: worker processes on this machine; "local": Ray (RAY_ADDRESS's cluster if set, else a
    # local Ray of ``workers`` CPUs); or a Ray cluster's address
    ray: str | None = None

    def env_kwargs(self) -> dict[str, Any]:
        return {"preset": self.preset, "num_players": self.num_players, **self.options}


@dataclass
class SeatRecord:
    """One seat's outcome in one game."""

    agent: int
    points: int  # the seat's side's final score
    pressure_points: int  # the part of it that came from pressures
    share_of_win: float  # 1 if its side alone won, 1/k for a k-way tie
    hand_points: dict[int, list[int]]  # deal size -> the side's points in hands of that size
    pressures: int  # pressures this seat took
    counts_drawn: int  # cards drawn ending counts
    stars: int


@dataclass
class GameRecord:
    deal: int
    lineup: int
    seats: list[SeatRecord]
    team_of_seat: list[int]
    final_scores: list[int]  # per side
    # per side, larger is better: the preset's own standing (lowest score wins in the Crates
    # family, highest in crazy_eights, lasting longest in zimbabwe; crates_env.env.final_standing)
    standing: list[float]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped an evaluation: ``records`` are the games of the deals
    played in every lineup by then (the first ``deals`` deals), in order."""

    def __init__(self, records: list[GameRecord], deals: int) -> None:
        super().__init__()
        self.records, self.deals = records, deals


def lineups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """Distinct cyclic seatings of the agents (seat -> agent index)."""
    seen: list[tuple[int, ...]] = []
    for r in range(num_players):
        lineup = tuple((s + r) % num_agents for s in range(num_players))
        if lineup not in seen:
            seen.append(lineup)
    return seen


# ---------------------------------------------------------------------- playing (worker side)
_WORKER: dict[str, Any] = {}


def init_worker(config: EvalConfig) -> None:
    """A worker process: it dies with its parent, and plays on one torch thread (workers that
    each take every core for a network's forward pass fight over the cores, and all of them
    crawl). Ray sets its tasks' threads itself."""
    serve_parent()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    init_player(config)


def init_player(config: EvalConfig) -> None:
    """Get this process ready to play ``config``'s games (``play_game``)."""
    env = raw_env(**config.env_kwargs())
    table = Table.from_env(env)
    _WORKER.update(config=config, env=env, table=table)


def _seed(*parts: int) -> int:
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def play_game(
    task: tuple[int, int, tuple[int, ...]], watch: Callable[[Game, int], None] | None = None
) -> GameRecord:
    """Play deal ``deal`` with the agents seated by ``lineup``; ``watch(game, action)`` sees
    each action just before it is applied (a replay's recorder)."""
    deal, index, lineup = task
    config: EvalConfig = _WORKER["config"]
    env: raw_env = _WORKER["env"]
    rules = env.rules
    # A fresh agent a seat, seeded by the game and seat alone (a checkpoint is loaded once a
    # process: agents.policy)
    seats = [
        make_agent(config.agents[a], _WORKER["table"], seed=_seed(config.seed, deal, index, s))
        for s, a in enumerate(lineup)
    ]
    for agent in seats:
        agent.reset()
    env.reset(seed=_seed(config.seed, deal))
    g = env.game
    counts_drawn = [0] * rules.num_players

    def choose(seat: int, obs: dict) -> int:
        action = decide(seats[seat], env, obs["observation"], obs["action_mask"])
        if action == DRAW:
            counts_drawn[seat] += g.view(seat).count  # 0 when no count runs
        if watch is not None:
            watch(g, action)
        return action

    play_seats(env, choose)
    return _record(deal, index, lineup, g, rules, counts_drawn)


def _record(deal, index, lineup, g, rules, counts_drawn) -> GameRecord:
    winners = g.winners()
    team_of = [rules.team_of(s) for s in range(rules.num_players)]
    pressures = [sum(r.seat_pressures[s] for r in g.results) for s in range(rules.num_players)]
    records = []
    for s, agent in enumerate(lineup):
        hand_points: dict[int, list[int]] = defaultdict(list)
        for result in g.results:
            hand_points[result.deal_size].append(result.team_points[team_of[s]])
        records.append(
            SeatRecord(
                agent=agent,
                points=g.scores[team_of[s]],
                pressure_points=sum(r.pressure_points[team_of[s]] for r in g.results),
                share_of_win=1 / len(winners) if team_of[s] in winners else 0.0,
                hand_points=dict(hand_points),
                pressures=pressures[s],
                counts_drawn=counts_drawn[s],
                stars=g.stars[s],
            )
        )
    return GameRecord(deal, index, records, team_of, list(g.scores), final_standing(g))
