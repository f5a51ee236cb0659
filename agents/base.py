"""What every agent is (``Agent``), and what an agent may know about the table it sits at
(``Table``).

An agent sees what a player at the table sees: the observation vector of its seat (named
slices, ``Table.layout``), the action mask, and the rules everybody agreed on before the deal
(``Table``: players, partnerships, card points, who a 7 hits, ...). One kind of agent looks
further: an agent that declares ``looks_ahead`` (SearchAgent) is also handed the game, which it
may only clone and re-deal from its own seat's view (``Game.resample_hidden``), so it never reads
a card its seat cannot see.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from crates_env.cards import EIGHT, JOKER, NINE, NUM_KINDS
from crates_env.game import Game
from crates_env.observation import Observer
from crates_env.presets import CardFunction
from crates_env.rules import Ruleset, make_ruleset
from crates_env.scoring import card_points, score_kinds

Games = Sequence[Game] | None  # each position's game, for an agent that looks ahead


class Agent(ABC):
    """The agent protocol: one legal action for the seat to play.

    - ``act(observation, action_mask, game=None) -> int``: the action for one position.
    - ``act_batch(observations, action_masks, games=None) -> actions``: one action per row, the
      same as ``act`` row by row (by default ``act`` row by row; an agent that can do better,
      a network's one forward pass, overrides it).
    - ``reset()``: a new game starts (by default nothing: an agent that keeps no state).
    - ``explain(...)``: the one optional method, what the agent weighed (by default None: its
      move is all it shows).
    - ``looks_ahead``: a declared capability, False by default. An agent that sets it needs the
      game itself (``game``, ``games``: ``crates_env.Game`` objects) and refuses to act without
      it; whoever seats one plays its games on the reference engine (``crates eval``,
      self-play, the warm start).

    Agents written elsewhere come in through ``agents.user.UserAgent``, which adapts any object
    with ``act(observation, action_mask)`` to this class.
    """

    looks_ahead: ClassVar[bool] = False

    @abstractmethod
    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None
    ) -> int:
        """The action of the seat to play, from its observation and action mask (and the game,
        for an agent that ``looks_ahead``)."""

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Games = None
    ) -> np.ndarray:
        """One action per row (``batch x size``), the same as ``act`` row by row."""
        games = [None] * len(observations) if games is None else games
        rows = zip(observations, action_masks, games, strict=True)
        return np.array([self.act(o, m, g) for o, m, g in rows], dtype=np.int64)

    def reset(self) -> None:  # noqa: B027 - an agent that keeps no state has nothing to reset
        """Called at the start of a game."""

    def explain(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        game: Game | None = None,
        search: bool = False,
    ) -> Explanation | None:
        """What the agent weighed at this decision, per legal move (``Explanation``): a
        network's probabilities and value, with ``search=True`` a search's margins too (they
        cost a search); None for an agent that only acts. Ask before the agent acts, so that
        what it says is what it saw."""
        return None

    # How agents of one kind decide many positions at once, each as itself (evaluation seats
    # a fresh agent at every seat of every game): ``decide_batch`` gives every group of equal
    # ``_group`` one ``_act_group`` call. By default an agent is a group of its own.
    @property
    def _group(self) -> Hashable:
        return ("agent", id(self))

    @classmethod
    def _act_group(
        cls,
        agents: Sequence[Agent],
        observations: np.ndarray,
        masks: np.ndarray,
        games: Sequence[Game] | None = None,
    ) -> np.ndarray:
        """Row ``i``'s action by ``agents[i]`` (all of one ``_group``), exactly as ``act``
        chooses it row by row: ``act_batch`` of an agent deciding every row, ``act`` per row
        otherwise."""
        if all(a is agents[0] for a in agents):
            return np.asarray(agents[0].act_batch(observations, masks, games), dtype=np.int64)
        games = [None] * len(agents) if games is None else games
        rows = zip(agents, observations, masks, games, strict=True)
        return np.array([a.act(o, m, g) for a, o, m, g in rows], dtype=np.int64)


def forced_moves(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's move where ``masks`` leaves one legal move (its ``argmax``), and which rows
    leave a choice: no agent need be asked to draw when drawing is all it may do."""
    return masks.argmax(axis=1), masks.sum(axis=1) > 1


def decide_batch(
    agents: Sequence[Agent],
    observations: np.ndarray,
    masks: np.ndarray,
    games: Sequence[Game] | None = None,
) -> np.ndarray:
    """Row ``i``'s action by ``agents[i]`` for the position of ``observations[i]`` and
    ``masks[i]`` (``games[i]``: its game, for an agent that looks ahead), the same as ``act``
    row by row, with the agents of one kind deciding together."""
    actions = np.zeros(len(agents), dtype=np.int64)
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for i, agent in enumerate(agents):
        if not isinstance(agent, Agent):
            raise ValueError(f"{agent!r} is no agent (agents.Agent; agents.user adapts others)")
        groups[agent._group].append(i)
    masks = np.asarray(masks).astype(bool)
    for rows in groups.values():
        members = [agents[i] for i in rows]
        own_games = None if games is None else [games[i] for i in rows]
        actions[rows] = type(members[0])._act_group(
            members, observations[rows], masks[rows], own_games
        )
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
    # what agents work out once per table (``derived``), by name
    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

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
        # the env's own layout is the one its vectors follow (the table layout's per-seat
        # slices read as the seat layout's: an agent reads its players' slots)
        observer = getattr(aec, "observer", None)
        layout = dict(observer.agent_layout() if observer else aec.observation_layout())
        if layout != dict(table.layout):
            table = replace(table, layout=layout)
        return table

    def derived(self, name: str, build: Callable[[Table], Any]) -> Any:
        """``build(self)``, worked out once per table and kept under ``name``: an evaluation
        seats a fresh agent at every seat of every game, all at one table."""
        if name not in self._derived:
            self._derived[name] = build(self)
        return self._derived[name]

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
