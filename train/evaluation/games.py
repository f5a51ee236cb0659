"""The games of an evaluation: agents against each other on the same cards, seats rotated.

Every deal (a seed that fixes the cards of every hand of a game) is replayed once per *lineup*:
the agents are seated cyclically (seat ``s`` gets agent ``(s + r) mod k``) for every rotation
``r`` that gives a different seating, so each agent holds each seat's cards and the luck of the
deal cancels out, as bridge players score duplicate. Statistics are paired by deal.

Each game is seeded from ``(seed, deal, lineup, seat)`` alone, so results are identical whatever
the number of worker processes, Ray tasks or games played side by side.

``play_games`` plays a run of games side by side as one batch of games
(``crates_env.engine_choice.game_batch``: the compiled engine wherever it plays the table and no
agent looks ahead in the reference engine's games), every agent at its own seat of its own game and
the agents of one kind deciding together (``agents.decide_batch``: HeuristicAgent's compiled
twin, one forward pass of a network, SearchAgent's rollouts together).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import Agent, Table, make_agent
from agents.base import decide_batch
from crates_env.actions import DRAW
from crates_env.engine_choice import game_batch
from crates_env.game import Game
from crates_env.processes import machine_memory

CHUNK_DEALS = 64  # deals a worker plays side by side: a few hundred games, one batch
# A game's record in memory, kept until the report is made: about 5 kB at a 4-player crates
# table, twice that for longer games (more hands, more players) and the report's arrays.
BYTES_A_RECORD = 10_000


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
    # the engine: "auto" (the compiled one wherever it plays the table and no agent looks ahead
    # in the reference engine's games), "vector" to insist, "reference"; the same records
    engine: str = "auto"
    # None: worker processes on this machine; "local": Ray (RAY_ADDRESS's cluster if set, else a
    # local Ray of ``workers`` CPUs); or a Ray cluster's address
    ray: str | None = None
    # the networks named by path may play a table outside the set they learned (crates eval
    # --other-table): a measurement there, never a covered table's figure; report.json says so
    other_table: bool = False

    def env_kwargs(self) -> dict[str, Any]:
        return {"preset": self.preset, "num_players": self.num_players, **self.options}

    def agent(self, spec: str, table: Table, seed: int | None) -> Agent:
        """The agent ``spec`` names, at ``table`` (``make_agent``, with ``other_table``)."""
        return make_agent(spec, table, seed=seed, other_table=self.other_table)


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


def check_deals(deals: int, num_agents: int, num_players: int, name: str = "deals") -> None:
    """A ValueError naming ``name`` for more deals of ``num_agents`` at a table of
    ``num_players`` than this machine's memory holds the games' records of (every record is
    kept until the report is made)."""
    most = max(1, machine_memory() // (len(lineups(num_agents, num_players)) * BYTES_A_RECORD))
    if deals > most:
        raise ValueError(
            f"{name} must be from 1 to {most:,} (what this machine's memory holds of the games' "
            f"records), not {deals:,}"
        )


def seed_of(*parts: int) -> int:
    """One seed from several numbers (a game's, a seat's), as ``SeedSequence`` mixes them."""
    return int(np.random.SeedSequence(list(parts)).generate_state(1)[0])


def looks_ahead(config: EvalConfig, table: Table) -> bool:
    """Whether an agent of ``config`` looks ahead in the reference engine's game
    (SearchAgent): its games then run on that engine; ``engine="vector"`` says it cannot."""
    ahead = any(
        config.agent(spec, table, seed=0).looks_ahead for spec in dict.fromkeys(config.agents)
    )
    if ahead and config.engine == "vector":
        raise ValueError("engine='vector' cannot play an agent that looks ahead in the game")
    return ahead


def play_games(
    config: EvalConfig,
    tasks: list[tuple[int, int, tuple[int, ...]]],
    watch: Callable[[Game, int], None] | None = None,
) -> list[GameRecord]:
    """Play every task ``(deal, lineup index, lineup)`` side by side: a slot a game, the next
    task dealt into a slot whose game ended. The records come back in task order.
    ``watch(game, action)`` sees each action of a single task's game just before it is applied
    (a replay's recorder): the game is then the reference engine's. A game whose pressures pass
    the compiled engine's 64-bit scores sends the whole run to the reference engine, where
    points are exact: every game is seeded by itself, so the records are the same."""
    table = Table.from_rules(config.preset, config.num_players, **config.options)
    ahead = looks_ahead(config, table)
    engine = "reference" if ahead or watch is not None else config.engine
    try:
        return _play(config, tasks, watch, table, ahead, engine)
    except OverflowError as exc:
        if engine != "auto":  # the compiled engine insisted on, or the reference's own limits
            raise ValueError(f"{exc}; run with --engine auto") from None
        return _play(config, tasks, watch, table, ahead, "reference")


def _play(config, tasks, watch, table: Table, ahead: bool, engine: str) -> list[GameRecord]:
    """``play_games`` on ``engine``."""
    batch = game_batch(
        min(len(tasks), CHUNK_DEALS * config.num_players),
        engine,
        **config.env_kwargs(),
        autoreset=False,
    )
    slots: list[_Game | None] = [None] * batch.num_games
    occupied = np.zeros(batch.num_games, dtype=bool)
    upcoming = list(enumerate(tasks))[::-1]  # the next task last
    records: dict[int, GameRecord] = {}
    count_at, count_scale = table.layout["count"][0], table.scales.get("count", 1.0)
    while len(records) < len(tasks):
        free = np.flatnonzero(~occupied)[: len(upcoming)]
        if free.size:
            dealt = [upcoming.pop() for _ in free]
            deals = [np.random.default_rng(seed_of(config.seed, task[0])) for _, task in dealt]
            batch.reset_as_env(deals, free)
            for slot, (index, task) in zip(free, dealt, strict=True):
                slots[slot] = _Game(config, table, index, task)
            occupied[free] = True
        live = occupied & ~batch.game_over
        rows = np.flatnonzero(live)
        to_play = batch.to_play
        observations, masks = batch.observe(games=rows), batch.legal_mask(games=rows)
        agents = [slots[i].seats[to_play[i]] for i in rows]
        games = [batch.game(int(i)) for i in rows] if ahead else None
        actions = np.zeros(batch.num_games, dtype=np.int64)
        actions[rows] = decide_batch(agents, observations, masks, games)
        for i in rows if watch is not None else ():
            watch(batch.game(int(i)), int(actions[i]))
        for k in np.flatnonzero(actions[rows] == DRAW):  # the count a draw picks up (0: none)
            i = rows[k]
            slots[i].counts_drawn[to_play[i]] += round(
                float(observations[k, count_at]) * count_scale
            )
        hands_before = batch.hands_played
        batch.step(actions, active=live)
        for i in np.flatnonzero(live & (batch.hands_played > hands_before)):
            slots[i].score_hands(batch.hand_log(int(i), int(hands_before[i])))
        for i in np.flatnonzero(live & batch.game_over):
            records[slots[i].index] = slots[i].record(batch, int(i))
            slots[i], occupied[i] = None, False
    return [records[t] for t in range(len(tasks))]


class _Game:
    """One task's game while it is played: its agents, seat by seat, and what its records
    gather hand by hand."""

    def __init__(self, config: EvalConfig, table: Table, index: int, task: tuple) -> None:
        self.index = index
        self.deal, self.lineup_index, self.lineup = task
        self.rules = table.rules
        n = self.rules.num_players
        # a fresh agent a seat, seeded by the game and seat alone (a checkpoint is loaded once a
        # process: agents.policy)
        self.seats = [
            config.agent(
                config.agents[a], table, seed=seed_of(config.seed, self.deal, self.lineup_index, s)
            )
            for s, a in enumerate(self.lineup)
        ]
        for agent in self.seats:
            agent.reset()
        teams = self.rules.num_teams
        self.counts_drawn = [0] * n
        self.pressures = [0] * n
        self.pressure_points = [0] * teams
        self.hand_points: list[dict[int, list[int]]] = [defaultdict(list) for _ in range(teams)]

    def score_hands(self, hands: list) -> None:
        for hand in hands:
            for team, points in enumerate(hand.team_points):
                self.hand_points[team][hand.deal_size].append(int(points))
                self.pressure_points[team] += int(hand.pressure_points[team])
            for seat, taken in enumerate(hand.seat_pressures):
                self.pressures[seat] += int(taken)

    def record(self, batch, slot: int) -> GameRecord:
        rules = self.rules
        winners = batch.winners(slot)
        scores = [int(x) for x in batch.scores[slot]]
        stars = [int(x) for x in batch.stars[slot]]
        team_of = [rules.team_of(s) for s in range(rules.num_players)]
        seats = [
            SeatRecord(
                agent=agent,
                points=scores[team_of[s]],
                pressure_points=self.pressure_points[team_of[s]],
                share_of_win=1 / len(winners) if team_of[s] in winners else 0.0,
                hand_points=dict(self.hand_points[team_of[s]]),
                pressures=self.pressures[s],
                counts_drawn=self.counts_drawn[s],
                stars=stars[s],
            )
            for s, agent in enumerate(self.lineup)
        ]
        standing = [float(x) for x in batch.standing(slot)]
        return GameRecord(self.deal, self.lineup_index, seats, team_of, scores, standing)
