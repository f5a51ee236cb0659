"""What every agent is, and what an agent may know about the table it sits at.

An agent sees only what a player at the table sees: the observation vector of its seat (named
slices, ``Table.layout``), the action mask, and the rules everybody agreed on before the deal
(``Table``: players, partnerships, card points, who a 7 hits, ...). It never looks inside the
engine's ``Game``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from crates_env.cards import EIGHT, JOKER, NINE, NUM_KINDS
from crates_env.observation import Observer
from crates_env.rules import CardFunction, Ruleset, make_ruleset
from crates_env.scoring import card_points, score_kinds


@runtime_checkable
class Agent(Protocol):
    """Anything that picks one legal action from an observation and its action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self) -> None: ...


class BaseAgent:
    """A small base for agents: ``reset`` does nothing unless the agent keeps state.

    An agent that decides from the action mask alone sets ``reads_observation = False``; self-play
    then skips building its observation vector (it is given zeros).

    Agents whose ``batch_group`` is the same hashable value decide a batch of positions together
    (``decide_batch``): ``act_group`` is called with one agent per row, so that each keeps its
    own random stream while the work is done once (one compiled call, one forward pass).
    """

    reads_observation = True
    needs_env = False  # True: called as act_in(env, observation, action_mask) (agents.decide)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        """Called at the start of a game."""

    @property
    def batch_group(self) -> Hashable:
        """Agents with equal groups decide their rows in one ``act_group`` call (by default an
        agent is a group of its own)."""
        return ("agent", id(self))

    @classmethod
    def act_group(
        cls,
        agents: Sequence[Any],
        observations: np.ndarray,
        masks: np.ndarray,
        envs: Sequence[Any] | None = None,
    ) -> np.ndarray:
        """Row ``i``'s action by ``agents[i]`` (all of one ``batch_group``), exactly as
        ``decide`` would choose it row by row: ``act_batch`` for an agent deciding every row,
        ``decide`` per row otherwise."""
        envs = [None] * len(agents) if envs is None else envs
        if hasattr(agents[0], "act_batch") and all(a is agents[0] for a in agents):
            return np.asarray(agents[0].act_batch(observations, masks), dtype=np.int64)
        rows = zip(agents, envs, observations, masks, strict=True)
        return np.array([decide(a, e, o, m) for a, e, o, m in rows], dtype=np.int64)


def decide(agent: Agent, env: Any, observation: np.ndarray, action_mask: np.ndarray) -> int:
    """``agent``'s action for the seat to play in ``env`` (a ``raw_env``): ``act`` from the
    observation and mask, or ``act_in`` for an agent that looks ahead in the game
    (``needs_env = True``, such as ``SearchAgent``)."""
    if getattr(agent, "needs_env", False):
        return int(agent.act_in(env, observation, action_mask))
    return int(agent.act(observation, action_mask))


def decide_batch(
    agents: Sequence[Any],
    observations: np.ndarray,
    masks: np.ndarray,
    envs: Sequence[Any] | None = None,
) -> np.ndarray:
    """Row ``i``'s action by ``agents[i]`` for the position of ``observations[i]`` and
    ``masks[i]`` (``envs[i]``: its game, for an agent that looks ahead), the same as ``decide``
    row by row, with the agents of one ``batch_group`` deciding together (``act_group``). An
    agent outside ``BaseAgent`` with ``act_batch`` decides all of its rows in one call."""
    actions = np.zeros(len(agents), dtype=np.int64)
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for i, agent in enumerate(agents):
        groups[getattr(agent, "batch_group", ("agent", id(agent)))].append(i)
    masks = np.asarray(masks).astype(bool)
    for rows in groups.values():
        members = [agents[i] for i in rows]
        act_group = getattr(type(members[0]), "act_group", BaseAgent.act_group)
        own_envs = None if envs is None else [envs[i] for i in rows]
        actions[rows] = act_group(members, observations[rows], masks[rows], own_envs)
    return actions


@dataclass(frozen=True)
class Explanation:
    """What an agent weighed at one decision, per legal move (``moves``, the legal actions in
    order); each figure is None where the agent has no such thing to say.

    ``probabilities``: a network's probability of each move (its masked softmax, summing to 1);
    ``value``: its value estimate of the position for the mover's side, in the reward units it
    was trained on (higher is better); ``margins``: a search's mean margin of each move for the
    mover's side over the rest of the hand, in points (higher is better), and ``margin_se`` the
    standard error of each over its re-deals."""

    moves: tuple[int, ...]
    probabilities: tuple[float, ...] | None = None
    value: float | None = None
    margins: tuple[float, ...] | None = None
    margin_se: tuple[float, ...] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The figures the agent gave, as plain data (JSON), without those it has not."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def explain(
    agent: Agent,
    env: Any,
    observation: np.ndarray,
    action_mask: np.ndarray,
    search: bool = False,
) -> Explanation | None:
    """What ``agent`` weighed at the decision of the seat to play in ``env`` (a ``raw_env`` or
    the ``Game``), through its one optional method ``explain(observation, action_mask, env=...,
    search=...)``: a network's probabilities and value, with ``search=True`` a search's margins
    too (they cost a search). None for an agent that only acts (the scripted ones: their move is
    all they show). Call it before the agent acts, so that what it says is what it saw."""
    method = getattr(agent, "explain", None)
    if method is None:
        return None
    return method(observation, action_mask, env=env, search=search)


_PER_TABLE: dict[tuple[int, str], tuple[Any, Any]] = {}


def per_table(table: Table, name: str, build: Callable[[Table], Any]) -> Any:
    """``build(table)``, worked out once per table object and kept under ``name``: an
    evaluation seats a fresh agent at every seat of every game, all at one table."""
    key = (id(table), name)
    known = _PER_TABLE.get(key)
    if known is None or known[0] is not table:
        if len(_PER_TABLE) > 256:  # tables come and go (tests, tools): keep the recent ones
            _PER_TABLE.clear()
        known = _PER_TABLE[key] = (table, build(table))
    return known[1]


@dataclass(frozen=True)
class Table:
    """What an agent may know about the game before the first card is dealt.

    ``layout`` names the slices of the observation vector (``name -> (start, stop)``);
    ``card_points[k]`` is what a card of kind ``k`` costs when left in hand (threes 3, the Joker
    per the table); ``kind_copies[k]`` is how many cards of kind ``k`` the deck holds. Build one
    with :meth:`from_env` or :meth:`from_rules`.
    """

    layout: Mapping[str, tuple[int, int]]
    num_players: int
    partnerships: bool
    card_points: tuple[int, ...]
    kind_copies: tuple[int, ...] = (1,) * 52 + (0,)
    preset: str = "crates"
    engine: str = "crates"  # "crates" for the Crates family, "eights" for Crazy Eights relatives
    # what each card kind does (Crates family): who draws how many, who plays next
    card_functions: tuple[CardFunction, ...] = ()
    wild_ranks: tuple[int, ...] = (EIGHT, NINE)
    # the divisor each slice was stored with (``decode`` multiplies it back); 1 when absent
    scales: Mapping[str, float] = field(default_factory=dict)
    # The ruleset itself, to score a hand exactly (threes covering, all-threes hands, ...).
    rules: Ruleset | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_rules(
        cls, rules: Ruleset | str = "crates", num_players: int | None = None, **options: Any
    ) -> Table:
        """The table of a ruleset, or of a preset name plus options (``"crates", 3``)."""
        if isinstance(rules, str):
            rules = make_ruleset(rules, num_players, **options)
        elif num_players is not None or options:
            raise ValueError("num_players and options go with a preset name, not a Ruleset")
        points = tuple(card_points(k, rules.points) for k in range(NUM_KINDS))
        kind_points = getattr(rules, "kind_points", ())
        if len(kind_points) == NUM_KINDS:  # the rank table plus per-kind exceptions (zimbabwe A♠)
            points = tuple(kind_points)
        engine = getattr(rules, "engine", "crates")
        observer = Observer(rules)
        return cls(
            layout=observer.layout(),
            num_players=rules.num_players,
            partnerships=rules.partnerships,
            card_points=points,
            kind_copies=tuple(rules.deck.copies(k) for k in range(NUM_KINDS)),
            preset=rules.preset,
            engine=engine,
            card_functions=rules.card_functions,
            wild_ranks=(EIGHT, NINE) if engine == "crates" else (EIGHT,),
            scales=observer.scales(),
            rules=rules,
        )

    @classmethod
    def from_env(cls, env: Any) -> Table:
        """The table of ``crates_v0.env()``, ``raw_env`` or the Gymnasium ``CratesGymEnv``."""
        inner = getattr(env, "unwrapped", env)
        aec = getattr(inner, "aec", inner)  # CratesGymEnv keeps the AEC env as .aec
        if not hasattr(aec, "rules") or not hasattr(aec, "observation_layout"):
            raise ValueError(f"{type(env).__name__} is not a Crates environment")
        table = cls.from_rules(aec.rules)
        layout = dict(aec.observation_layout())
        if layout != dict(table.layout):  # the env's own layout is the one its vectors follow
            table = replace(table, layout=layout)
        return table

    @property
    def ruleset(self) -> Ruleset:
        """The table's rules (the preset's defaults for a table built without them)."""
        return self.rules if self.rules is not None else make_ruleset(self.preset, self.num_players)

    # ------------------------------------------------------------------ reading observations
    @property
    def obs_size(self) -> int:
        """Length of the observation vector."""
        return max(stop for _, stop in self.layout.values())

    @property
    def deck_size(self) -> int:
        return sum(self.kind_copies)

    def slice(self, observation: np.ndarray, name: str) -> np.ndarray:
        """The named slice of an observation (a view), e.g. ``table.slice(obs, "hand")``; of
        every row of a batch of observations (``batch x size``) alike."""
        try:
            start, stop = self.layout[name]
        except KeyError:
            raise ValueError(
                f"no observation slice {name!r}; valid: {', '.join(self.layout)}"
            ) from None
        return observation[..., start:stop]

    def scalar(self, observation: np.ndarray, name: str) -> float:
        """The value of a one-entry slice (``count``, ``clockwise``, ...), as stored."""
        return float(self.slice(observation, name)[0])

    def decode(self, observation: np.ndarray, name: str) -> np.ndarray:
        """The named slice in its own units (cards, points, pressures): the stored value times
        the scale it was divided by (``crates_env.observation.SLICES``)."""
        return self.slice(observation, name) * self.scales.get(name, 1.0)

    def counts(self, observation: np.ndarray, name: str) -> list[int]:
        """A slice of whole numbers (hand sizes, the count, cards in the stock), decoded."""
        return [round(float(x)) for x in self.decode(observation, name)]

    def hand_kinds(self, observation: np.ndarray) -> list[int]:
        """The kinds held, one entry per card (two decks may hold two copies of a kind)."""
        hand = np.rint(self.slice(observation, "hand")).astype(int)
        return [int(k) for k in np.repeat(np.arange(NUM_KINDS), np.maximum(hand, 0))]

    # ------------------------------------------------------------------ the rules' public data
    def hand_points(self, kinds: Iterable[int]) -> int:
        """Points of a hand left at the end of a deal (threes cover, as the rules score it)."""
        kinds = list(kinds)
        if self.rules is None:
            return sum(self.card_points[k] for k in kinds)
        return score_kinds(kinds, self.rules)

    def is_wild(self, kind: int) -> bool:
        """An 8 or 9 (only an 8 in the Crazy Eights family); the Joker is not counted here."""
        return kind != JOKER and kind % 13 in self.wild_ranks

    @property
    def partner_slot(self) -> int | None:
        """Relative slot of the partner (partners sit opposite), or None without partnerships."""
        return self.num_players // 2 if self.partnerships else None
