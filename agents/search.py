"""SearchAgent: a base policy (HeuristicAgent, or a network), improved by rollouts where the stock
runs short.

Shuffle pressures double all game long, so who meets the empty stock decides much of a game's
points, and that is a matter of counting: which play leaves the last cards of the stock to an
opponent. The agent plays like its base policy (HeuristicAgent, or a network) until the stock
is down to ``stock_max`` cards; from there, at every real choice, it tries each legal move on
``samples`` deals of the unseen cards (perfect-information Monte Carlo: the other hands and the
stock re-dealt at random, sizes kept), plays each to the end of the hand with the base policy in
every seat, and picks the move
whose hands came out best for its side against the others (``Ruleset.margin``: fewer points
where they are a cost, more where the winner collects them). The same re-deals serve every move, so
the comparison between moves is not swamped by the luck of the re-deal.

A few dozen re-deals value a move only to within tens of points of the hand, far more than most
moves differ by, so the best-looking move is often the luckiest. So the agent keeps its base
policy's move unless the best one beats it by ``z`` (default 1) standard errors of their
difference over the common re-deals: the clear finds (a pressure dodged, a way out) still change
the move, the noise no longer does (``z=0`` always takes the best-looking move).

It sits at the table (``crates eval --agents search heuristic``, with settings
``search:samples=8,stock_max=6,base=shipped``; ``crates play``, self-play
opponents) and teaches the warm start (``warm_start.teacher: search``). It needs the game to
look ahead, so it declares ``looks_ahead`` and is called as ``act(observation, action_mask,
game)`` (the reference ``Game``, or a ``raw_env`` holding it); it uses only
``Game.resample_hidden`` for the seat to play and ``Game.clone``, so it never reads a card its
seat cannot see. The rollouts of every move x re-deal of every decision searched together run
as one batch of games (``crates_env.engine_choice.game_batch``: the compiled engine wherever it
plays the table), the base policy deciding every seat of every rollout a batch at a time.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from crates_env.engine_choice import game_batch
from crates_env.game import Game
from crates_env.rules import lead_over_others, rule_system

from . import shipped
from .base import Agent, Explanation, Table, decide_batch, forced_moves
from .policy import PolicyAgent
from .scripted import HeuristicAgent

# ``stock_max`` for a search from the first move (spelled ``stock_max=all``)
EVERYWHERE = 1_000_000
# A rollout whose hand goes on past this many decisions, or past this many more pressures to a
# side, is the base policy caught in a loop (nobody can go out, the stock runs out again and
# again), not a hand the search can learn from: it counts as level, as an unfinished one does.
RUNAWAY_DECISIONS = 2_000
RUNAWAY_PRESSURES = 40


@dataclass(frozen=True)
class SearchSettings:
    """Where and how hard a SearchAgent looks (``SearchAgent``'s arguments of those names)."""

    samples: int = 16
    stock_max: int = 10
    z: float = 1.0
    deepen: int = 0
    deepen_at: float | None = None


def teacher_settings(preset: str) -> SearchSettings:
    """The search settings of the rule system ``preset``'s teacher: its declaration's
    (``crates_env.presets``, ``RuleSystem.search``; ``stock_max`` ``"all"`` is ``EVERYWHERE``),
    the defaults for what it leaves out."""
    declared = dict(rule_system(preset).search)
    if declared.get("stock_max") == "all":
        declared["stock_max"] = EVERYWHERE
    return SearchSettings(**declared)


class SearchAgent(Agent):
    """Acts for the seat to play in ``env`` (a ``raw_env``) from its observation and mask.

    Every setting left out is the table's teacher's (``teacher_settings``). ``samples``: re-deals
    per move; ``stock_max``: search only when the stock holds that many cards or fewer
    (``EVERYWHERE``: from the first move), play like the base policy above it;
    ``base``: ``"heuristic"``, ``"shipped"`` (the network the package ships) or the path of a
    checkpoint (``agents.checkpoints``), the policy that plays
    every seat in the rollouts and this seat where it does not search; ``z``: leave the base
    policy's move only for one better by ``z`` standard errors (0: always the best-looking move);
    ``deepen``: up to this many more rounds of ``samples`` re-deals for a decision whose best
    move still beats the base policy's by ``z / 2`` standard errors or more after the re-deals
    so far (a change that may be real gets the re-deals to tell; the many clear keeps cost no
    more), or with ``deepen_at`` whose moves' mean margins still lie that many points apart
    (best against worst: the decisions worth most, whatever the base move); ``other_table``: the
    base network learned at another table and plays this one on purpose (expert iteration's
    first round at a table that has no network yet, ``init_other_table``).
    """

    looks_ahead = True

    def __init__(
        self,
        table: Table,
        samples: int | None = None,
        stock_max: int | None = None,
        base: str = "heuristic",
        seed: int | None = 0,
        z: float | None = None,
        deepen: int | None = None,
        deepen_at: float | None = None,
        other_table: bool = False,
    ) -> None:
        teacher = teacher_settings(table.preset)  # what is not given: the table's teacher
        samples = teacher.samples if samples is None else samples
        stock_max = teacher.stock_max if stock_max is None else stock_max
        z = teacher.z if z is None else z
        deepen_at = teacher.deepen_at if deepen_at is None else deepen_at
        if deepen is None:  # the teacher deepens its unsure changes: told z=0, it has none
            deepen = teacher.deepen if z or deepen_at is not None else 0
        for name, value, low in (("samples", samples, 1), ("stock_max", stock_max, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"SearchAgent {name} must be an int >= {low}, not {value!r}")
        if isinstance(deepen, bool) or not isinstance(deepen, int) or deepen < 0:
            raise ValueError(f"SearchAgent deepen must be an int >= 0, not {deepen!r}")
        if deepen_at is not None and (
            isinstance(deepen_at, bool)
            or not isinstance(deepen_at, int | float)
            or not 0 <= deepen_at < float("inf")
        ):
            raise ValueError(f"SearchAgent deepen_at must be a number >= 0, not {deepen_at!r}")
        if deepen and not z and deepen_at is None:
            raise ValueError(
                "SearchAgent deepen > 0 needs z > 0 (it deepens the unsure changes) or "
                "deepen_at (the decisions whose moves lie that many points apart)"
            )
        if isinstance(z, bool) or not isinstance(z, int | float) or not 0 <= z < float("inf"):
            raise ValueError(f"SearchAgent z must be a number >= 0, not {z!r}")
        if z > 0 and samples < 2:
            raise ValueError(
                "SearchAgent z > 0 needs samples >= 2 (a standard error of the gain); "
                "z=0 searches with one re-deal"
            )
        if other_table and base in ("heuristic", shipped.SHIPPED):
            raise ValueError(
                "SearchAgent other_table=true is for a base network of another table "
                f"(a checkpoint path, .zip), not base {base!r}"
            )
        if base == "heuristic":
            self.base_policy = HeuristicAgent(table, seed)
        elif base == shipped.SHIPPED:
            self.base_policy = PolicyAgent(shipped.shipped_network(table.ruleset), table=table)
        elif isinstance(base, str) and base.endswith(".zip"):
            self.base_policy = PolicyAgent(base, table=table, other_table=other_table)
        else:
            raise ValueError(
                "SearchAgent base must be 'heuristic', 'shipped' or a checkpoint path (.zip), "
                f"not {base!r}"
            )
        self.samples, self.stock_max, self.z, self.deepen = samples, stock_max, float(z), deepen
        self.deepen_at = None if deepen_at is None else float(deepen_at)
        self.table, self.base = table, base
        self.rng = np.random.default_rng(seed)
        self._batches: dict[tuple, Any] = {}  # (rules, size) -> a batch of games, for rollouts

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Any = None) -> int:
        return int(self._act_group([self], observation[None, :], action_mask[None, :], [game])[0])

    def act_batch(
        self, observations: np.ndarray, action_masks: np.ndarray, games: Any = None
    ) -> np.ndarray:
        return self._act_group([self] * len(observations), observations, action_masks, games)

    @property
    def _group(self) -> tuple:
        """Searches of one setting decide together: their rollouts run as one batch."""
        settings = (self.samples, self.stock_max, self.base, self.z, self.deepen, self.deepen_at)
        return ("search", id(self.table), *settings)

    @classmethod
    def _act_group(cls, agents, observations, masks, envs=None) -> np.ndarray:
        """Row ``i``'s action by ``agents[i]`` in the game of ``envs[i]``: every searched
        decision's rollouts together (``margins_of``), each re-dealt from its own agent's
        generator, and the base policy's moves a batch at a time; the same moves as ``act``
        row by row."""
        if envs is None or any(env is None for env in envs):
            raise ValueError("SearchAgent looks ahead in the game: give each position its game")
        masks = np.asarray(masks).astype(bool)
        legal = [np.flatnonzero(m) for m in masks]
        rows = range(len(agents))
        searching = [i for i in rows if agents[i].searches(envs[i], legal[i])]
        first = agents[0]
        # z=0 never needs the base move where it searches (and never asks for it: a base policy
        # may draw from its own random stream)
        based = [i for i in rows if first.z > 0 or i not in searching]
        actions = np.zeros(len(agents), dtype=np.int64)
        if based:
            policies = [agents[i].base_policy for i in based]
            actions[based] = decide_batch(policies, observations[based], masks[based])
        decisions = [(envs[i], legal[i]) for i in searching]
        bases = [int(actions[i]) if first.z > 0 else None for i in searching]
        margins = first.deepened_margins(decisions, bases, [agents[i].rng for i in searching])
        for i, margin, base in zip(searching, margins, bases, strict=True):
            actions[i] = legal[i][Verdict.of(margin, legal[i], base).choice(first.z)]
        return actions

    def deepened_margins(
        self,
        decisions: Sequence[tuple[Any, np.ndarray]],
        bases: Sequence[int | None],
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> list[np.ndarray]:
        """``margins_of(decisions)``, then up to ``deepen`` more rounds of as many re-deals for
        each decision still worth them (``worth_deepening``; ``bases``: each decision's base
        move, None where it is not known): each decision's margins over all its re-deals."""
        rngs = [self.rng] * len(decisions) if rngs is None else rngs
        margins = self.margins_of(decisions, rngs)
        for _ in range(self.deepen):
            unsure = [
                i
                for i, (margin, (_, legal), base) in enumerate(
                    zip(margins, decisions, bases, strict=True)
                )
                if self.worth_deepening(Verdict.of(margin, legal, base))
            ]
            if not unsure:
                break
            more = self.margins_of([decisions[i] for i in unsure], [rngs[i] for i in unsure])
            for i, extra in zip(unsure, more, strict=True):
                margins[i] = np.hstack([margins[i], extra])
        return margins

    def worth_deepening(self, verdict: Verdict) -> bool:
        """Whether a decision gets more re-deals: its moves' mean margins still lie
        ``deepen_at`` points apart, or (without ``deepen_at``) its best move may beat the base
        move, by ``z / 2`` standard errors."""
        if self.deepen_at is not None:
            return bool(np.ptp(verdict.values) >= self.deepen_at)
        return verdict.may_change(self.z / 2)

    def explain(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        game: Any = None,
        search: bool = False,
    ) -> Explanation:
        """What the base network says (``PolicyAgent.explain``; nothing over HeuristicAgent) and,
        with ``search=True`` at a decision the agent searches (``searches``: elsewhere it plays
        its base policy's move), each move's mean margin with its standard error over the
        re-deals (``move_margins``). The re-deals come from a copy of the agent's generator:
        explaining changes nothing of its play, and just before ``act`` they are the very
        re-deals its search draws first (``deepen``'s further re-deals are not shown)."""
        if search and game is None:
            raise ValueError(
                "SearchAgent searches in the game: explain(..., game=game, search=True)"
            )
        legal = np.flatnonzero(action_mask)
        said = self.base_policy.explain(observation, action_mask) or Explanation(
            tuple(map(int, legal))
        )
        if not search or not self.searches(game, legal):
            return said
        margins = self.margins_of([(game, legal)], [copy.deepcopy(self.rng)])[0]
        values = Verdict.of(margins, legal, None).values
        spread = margins.std(axis=1, ddof=1) if self.samples > 1 else np.zeros_like(values)
        se = spread / np.sqrt(self.samples)
        return replace(said, margins=tuple(map(float, values)), margin_se=tuple(map(float, se)))

    def searches(self, env, legal: np.ndarray) -> bool:
        """Whether the agent searches this decision: a real choice, the stock short enough."""
        g = _game(env)
        return len(legal) > 1 and g.view(g.to_play).stock_size <= self.stock_max

    def move_values(self, env, legal: np.ndarray) -> np.ndarray:
        """Mean margin of each legal move for the mover's side over the re-deals (higher is
        better: ``move_margins``)."""
        return self.move_margins(env, legal).mean(axis=1)

    def move_margins(self, env, legal: np.ndarray) -> np.ndarray:
        """The mover's side's margin in the rest of this hand (``Ruleset.margin``: how much
        better it did than the others' mean, as the preset counts points; higher is better for
        the mover on every preset) for each legal move (rows) on each re-deal (columns).

        Each re-deal is ``resample_hidden`` for the mover's seat, so the search never reads a
        card the seat cannot see; every move is tried on a clone of the same re-deal, whose
        reshuffles are the same too."""
        return self.margins_of([(env, legal)])[0]

    def margins_of(
        self,
        decisions: Sequence[tuple[Any, np.ndarray]],
        rngs: Sequence[np.random.Generator] | None = None,
    ) -> list[np.ndarray]:
        """``move_margins`` of several decisions, each ``(env, legal)`` of its own game (and
        re-dealt from ``rngs[i]``, default this agent's generator): the re-deals drawn decision
        by decision, then every rollout of every decision advanced together as one batch of
        games, the base policy deciding every seat of every rollout in one call a round (one
        forward pass of a network, one compiled call of HeuristicAgent), so that many decisions
        cost little more than one."""
        if not decisions:
            return []
        rngs = [self.rng] * len(decisions) if rngs is None else rngs
        games = [_game(env) for env, _ in decisions]
        redeals = [
            [g.resample_hidden(g.to_play, rng) for _ in range(self.samples)]
            for g, rng in zip(games, rngs, strict=True)
        ]
        legals = [legal for _, legal in decisions]
        needed = self.samples * sum(len(legal) for legal in legals)
        try:
            gained, ended = self._roll_out(self._batch(games[0].rules, needed), redeals, legals)
        except OverflowError:  # a side's pressures passed the compiled engine's 64-bit scores
            batch = self._batch(games[0].rules, needed, "reference")
            gained, ended = self._roll_out(batch, redeals, legals)
        out, start = [], 0
        for g, legal in zip(games, legals, strict=True):
            rows = slice(start, start + len(legal) * self.samples)
            side = lead_over_others(gained[rows], g.rules.team_of(g.to_play))
            margins = np.where(ended[rows], side, 0.0)
            out.append(margins.reshape(self.samples, len(legal)).T)
            start = rows.stop
        return out

    def _roll_out(
        self, batch: Any, redeals: list[list[Game]], legals: list[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every legal move of every decision on each of its re-deals, played to the end of the
        hand in ``batch``, the base policy in every seat: per rollout (decision by decision,
        re-deal by re-deal, move by move), what the hand did to each side's standing (its points
        as the preset counts them, or in an elimination game -1 for the side it knocked out and
        +1 for those it did not), and whether the hand ended (not a runaway: ``RUNAWAY_...``)."""
        hand = np.full(batch.num_games, -1)  # the hand each slot's rollout plays to its end
        moves, slot = [], 0
        for games, legal in zip(redeals, legals, strict=True):
            moves.append(np.tile(legal, self.samples))
            for g in games:
                batch.from_game(g, slot)
                batch.copy_games([slot] * (len(legal) - 1), np.arange(slot + 1, slot + len(legal)))
                hand[slot : slot + len(legal)] = g.hand_index
                slot += len(legal)
        used = np.arange(batch.num_games) < slot
        batch.copy_games(np.zeros(batch.num_games - slot, dtype=int), np.flatnonzero(~used))
        before, pressures = batch.standings, batch.pressures_taken.max(axis=1)
        actions = np.zeros(batch.num_games, dtype=np.int64)
        actions[:slot] = np.concatenate(moves)
        batch.step(actions, active=used)
        runaway = np.zeros(batch.num_games, dtype=bool)
        for decision in range(RUNAWAY_DECISIONS + 1):
            live = used & ~batch.game_over & (batch.hands_played == hand)
            runaway |= live & (batch.pressures_taken.max(axis=1) - pressures > RUNAWAY_PRESSURES)
            if decision == RUNAWAY_DECISIONS:
                runaway |= live
            live &= ~runaway
            if not live.any():
                break
            rows = np.flatnonzero(live)
            masks = batch.legal_mask(games=rows)
            actions[:] = 0
            actions[rows], asks = forced_moves(masks)
            if asks.any():  # about half of the rollouts' positions are a forced draw or pass
                ask = rows[asks]
                actions[ask] = self.base_policy.act_batch(batch.observe(games=ask), masks[asks])
            batch.step(actions, active=live)
        gained = np.where(runaway[:, None], 0.0, batch.standings - before)
        return gained, (batch.hands_played > hand) & ~runaway

    def _batch(self, rules, size: int, engine: str = "auto"):
        """A batch of at least ``size`` games of ``rules`` (a power of two, so that a few serve
        every decision): the compiled engine wherever it plays them, or ``engine``."""
        key = (rules, 1 << max(0, size - 1).bit_length(), engine)
        if key not in self._batches:
            self._batches[key] = game_batch(
                key[1],
                engine=engine,
                preset=rules.preset,
                num_players=rules.num_players,
                autoreset=False,
                **rules.options(),
            )
        return self._batches[key]


def _game(env) -> Game:
    """The game of ``env`` (a ``raw_env``), or ``env`` itself (a ``Game``)."""
    return getattr(env, "game", env)


@dataclass(frozen=True)
class Verdict:
    """What the search says of one decision's legal moves, against the base policy's move.

    ``values``: each move's mean margin over the re-deals; ``gains``: its mean gain over the
    base move on the same re-deals, and ``gain_se`` the standard error of that gain (zeros
    without a base move, or with one re-deal)."""

    legal: np.ndarray
    values: np.ndarray
    gains: np.ndarray
    gain_se: np.ndarray
    base: int | None  # index into ``legal`` of the base policy's move

    @classmethod
    def of(cls, margins: np.ndarray, legal: np.ndarray, base_action: int | None) -> Verdict:
        """From ``move_margins`` (moves x re-deals) and the base policy's action."""
        values = margins.mean(axis=1)
        if base_action is None:
            zeros = np.zeros_like(values)
            return cls(legal, values, zeros, zeros, None)
        base = int(np.flatnonzero(legal == base_action)[0])
        gain = margins - margins[base]
        samples = margins.shape[1]
        se = gain.std(axis=1, ddof=1) / np.sqrt(samples) if samples > 1 else np.zeros_like(values)
        return cls(legal, values, gain.mean(axis=1), se, base)

    def may_change(self, z: float) -> bool:
        """Whether the best-looking move beats the base move by more than ``z`` standard errors
        of the gain (always, without a base move)."""
        if self.base is None:
            return True
        best = int(self.values.argmax())
        return best != self.base and self.gains[best] > z * self.gain_se[best]

    def choice(self, z: float) -> int:
        """The index of the move to play: the best-looking one, unless it beats the base move
        by no more than ``z`` standard errors of the gain (then the base move)."""
        best = int(self.values.argmax())
        if z > 0 and self.gains[best] <= z * self.gain_se[best]:
            return int(self.base)
        return best
