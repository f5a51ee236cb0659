"""PettingZoo AEC environment over the rules engine (``crates_env.crates_v0``).

Used like PettingZoo's classic games, and exact where they are loose: every agent receives its
reward for a hand on the step that ends it, whoever acted, and partners share their side's reward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import register_gymnasium
from .actions import NUM_ACTIONS, action_name, parse_action, random_legal_action
from .cards import SUIT_SYMBOLS, SUITS, card_code, pretty
from .game import Game, HandResult, new_game
from .observation import SEAT_LAYOUT
from .payouts import Payouts, legal_mask
from .render.table import DECISION_WORDS, EventCursor, game_result, table_snapshot
from .rules import Ruleset, int_value, make_ruleset
from .settings import EnvSettings, finite_number, next_game_rng, one_of
from .state import HAND_ENDINGS
from .table_observation import make_observer

RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_MODES = ("raise", "terminate")

register_gymnasium()  # gymnasium is loaded now: gymnasium.make("Crates-v0") works


def env(**kwargs) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are.

    ``illegal="raise"`` (default) raises ``ValueError`` on an illegal action; ``"terminate"`` uses
    PettingZoo's TerminateIllegalWrapper (the game ends, the offender gets ``illegal_reward``).
    """
    illegal = one_of("illegal", kwargs.pop("illegal", "raise"), ILLEGAL_MODES)
    illegal_reward = finite_number("illegal_reward", kwargs.pop("illegal_reward", -1.0))
    e: AECEnv = raw_env(**kwargs)
    if illegal == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    # No AssertOutOfBoundsWrapper: raw_env refuses any action outside the mask with a ValueError
    # that names the legal ones, where the wrapper's bare AssertionError names nothing.
    return OrderEnforcing(e)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with a reset that counts only once it has succeeded: its own
    marks the env reset before trying, so a refused reset (a bad seed or option) then a step
    ended in an AttributeError. Before a successful reset, ``step``, ``observe`` and ``state``
    say what raw_env says ("call reset() before step()")."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._has_reset = self._has_updated = True

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            self.unwrapped.step(action)  # raises raw_env's ValueError
        super().step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            self.unwrapped.observe(agent)
        return super().observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            self.unwrapped.state()
        return super().state()


class raw_env(AECEnv, EzPickle):  # PettingZoo's naming convention
    """Crates (or a relative) for ``num_players`` agents ``player_0`` … ``player_{n-1}``.

    Keyword arguments: ``preset``, ``num_players``, any ruleset option (e.g.
    ``deal_schedule=[1]``), ``render_mode`` (``"ansi"``: a text table; ``"rgb_array"``: the
    table drawn as an RGB array; ``"human"``: that picture in a window), ``reward_mode``
    (``"points"``: minus own side's points this hand; ``"relative"``: mean of the opponents'
    points minus own; ``"win"``: a terminal reward by final rank, +1 best to -1 worst),
    ``reward_scale`` (multiplies every reward), ``reward_timing`` (``"hand"``: a hand's points
    on the step that ends it; ``"event"``: a shuffle pressure's points on the step it is taken,
    the rest when the hand ends, so each hand adds up the same) and ``one_card``
    (``"action"``: announcing is a decision; ``"auto"``: the environment announces whenever it
    is allowed) and ``observation`` (``"seat"``: the vector of the seat's own table, whose
    size follows the players; ``"table"``: the same size at every table, with what the table is
    at the end, for one network over many tables: docs/env.md).
    """

    metadata = {  # noqa: RUF012 - PettingZoo reads a class attribute
        "name": "crates_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        preset: str = "crates",
        num_players: int | None = None,
        render_mode: str | None = None,
        reward_mode: str = "points",
        reward_scale: float = 1.0,
        one_card: str = "action",
        reward_timing: str = "hand",
        observation: str = SEAT_LAYOUT,
        **options,
    ) -> None:
        EzPickle.__init__(
            self,
            preset,
            num_players,
            render_mode,
            reward_mode,
            reward_scale,
            one_card,
            reward_timing,
            observation,
            **options,
        )
        super().__init__()
        self.render_mode = one_of("render_mode", render_mode, (None, *RENDER_MODES))
        self.settings = EnvSettings(reward_mode, reward_scale, reward_timing, one_card)
        self.reward_mode, self.reward_scale = self.settings.reward_mode, self.settings.reward_scale
        self.rules: Ruleset = make_ruleset(preset, num_players, **options)
        self.observer = make_observer(self.rules, observation)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.observer.low, self.observer.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        # The whole state, for centralized critics (PettingZoo's state()): seat 0's observation,
        # then what seat 0 cannot see; a slot counts copies of a kind, at most the deck's.
        hidden = self.observer.hidden_size
        copies = max(self.rules.deck.copies(k) for k in set(self.rules.deck.kinds))
        self.state_space = spaces.Box(
            np.concatenate([self.observer.low, np.zeros(hidden, dtype=np.float32)]),
            np.concatenate([self.observer.high, np.full(hidden, copies, dtype=np.float32)]),
            dtype=np.float32,
        )
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._seed_rng = np.random.default_rng()
        self.game: Game | None = None
        # every hand finished in this game, as plain data (hand_summary), oldest first: the full
        # records of what infos say in numbers
        self.hand_summaries: list[dict[str, Any]] = []
        self._window = None  # render_mode="human": the window the frames are shown in
        self._events: EventCursor | None = None  # the game's events, read when it is drawn
        self._step_events: list = []  # what the last step did, for the drawn table

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``options={"deck": [...], "dealer": k}`` stacks the first hand.

        A bad seed or option raises ``ValueError`` and leaves the environment as it was (its
        game, and the stream later plain resets draw their games from)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict like {{'dealer': 0}}, not {options!r}")
        options = dict(options or {})
        unknown = set(options) - {"deck", "dealer"}
        if unknown:  # PettingZoo's api_test passes foreign options: warn, do not fail
            gymnasium.logger.warn(
                f"ignoring reset option(s) {sorted(unknown)}; valid: deck, dealer"
            )
        if seed is not None and (int_value(seed) is None or seed < 0):
            raise ValueError(f"seed must be an int >= 0 or None, not {seed!r}")
        stream = self._seed_rng if seed is None else np.random.default_rng(seed)
        before = stream.bit_generator.state
        # Each game draws its own generator from the env's stream: reset(seed=s) then plain
        # resets replay the same games, and no two games of one stream repeat.
        game_rng = next_game_rng(stream)
        try:
            game = new_game(
                self.rules, seed=game_rng, dealer=options.get("dealer"), deck=options.get("deck")
            )
        except ValueError:
            stream.bit_generator.state = before
            raise
        self._seed_rng, self.game = stream, game
        self._payouts = Payouts(game, self.settings)
        self._events = EventCursor(game, from_start=True) if self._draws() else None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.hand_summaries = []
        self.infos = self._step_infos([])
        self.agent_selection = self.possible_agents[0]  # kept if the deal already ends the game
        self._after_move(self._payouts.start())
        self._note_events()
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        if self.game is None:
            raise ValueError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:  # first: a refused action changes nothing, pending rewards included
            paid = self._payouts.apply(action)
        except ValueError as exc:  # name the agent too; the engine names the action and the legal
            raise ValueError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos = self._step_infos([])
        self._after_move(paid)
        self._note_events()
        if self.render_mode == "human":
            self.render()

    def _step_infos(self, hands: list[dict[str, Any]]) -> dict[str, dict]:
        """Every agent's info for a step on which ``hands`` ended (``step_info``)."""
        return {a: step_info(hands, self.rules.num_players) for a in self.agents}

    def _after_move(self, paid: list[float]) -> None:
        """Hand out what the move paid each seat (``Payouts``), record the hands it finished,
        and pick the agent."""
        g = self.game
        for agent, reward in zip(self.possible_agents, paid, strict=True):
            self.rewards[agent] += reward
        finished = self._payouts.finished
        if finished:
            summaries = [hand_summary(r, self.rules) for r in finished]
            self.hand_summaries.extend(summaries)
            self.infos = self._step_infos(summaries)
        if g.game_over:
            done = dict.fromkeys(self.agents, True)
            if g.truncated:
                self.truncations = done
            else:
                self.terminations = done
        else:
            self.agent_selection = self.possible_agents[g.to_play]
        self._accumulate_rewards()

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self.game
        if g is None:
            raise ValueError("call reset() before observe()")
        if agent not in self.agent_seat:
            raise ValueError(f"no agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        view = g.view(self.agent_seat[agent])
        mine = view.to_play == view.seat  # to_play is None once the game is over
        mask = legal_mask(g) if mine else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self.observer.encode(view), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The whole state, for a centralized critic (PettingZoo's convention; TorchRL's
        ``return_state=True``): seat 0's observation vector, then what seat 0 cannot see
        (``Observer.encode_hidden``: the other hands, the stock's make-up and its next cards).
        A policy must never read it."""
        g = self.game
        if g is None:
            raise ValueError("call reset() before state()")
        public = self.observer.encode(g.view(0))
        return np.concatenate([public, self.observer.encode_hidden(g, 0)])

    @property
    def paid_pressure_points(self) -> list[int]:
        """Per team, the pressure points of the hand in play already paid as rewards
        (``reward_timing="event"``): what ``VectorGame.from_game`` needs to play on from this
        position."""
        return list(self._payouts.paid)

    def observation_layout(self) -> dict[str, tuple[int, int]]:
        """Name -> (start, stop) of each slice of ``observe(agent)["observation"]``."""
        return self.observer.layout()

    # ------------------------------------------------------------------ introspection
    def decode_action(self, action: int) -> str:
        """``"play 8S"``, ``"suit H"``, ``"draw"``, ``"announce"``."""
        return action_name(action)

    def encode_action(self, text: str) -> int:
        return parse_action(text)

    def hand(self, agent: str) -> list[str]:
        """Card codes held by ``agent``."""
        return self.game.hand(self.agent_seat[agent])

    def public_state(self) -> dict[str, Any]:
        """What every player at the table can see."""
        v = self.game.view(0)
        team_of = self.rules.team_of
        seats = range(self.rules.num_players)
        return {
            "hand_sizes": list(v.sizes),
            "stock_size": v.stock_size,
            "discard_size": v.discard_size,
            "top_card": None if v.top is None else card_code(v.top),
            "current_suit": None if v.suit is None else SUITS[v.suit],
            "direction": v.direction,
            "count": v.count,
            "scores": [v.scores[team_of(s)] for s in seats],
            "pressures": [v.pressures[team_of(s)] for s in seats],
            "hand_index": v.hand_index,
            "deal_size": v.deal_size,
            "dealer": v.dealer,
            "to_play": v.to_play,
            "decision": None if v.decision is None else v.decision.name.lower(),
            "penalty_owed": list(v.penalty_owed),
            "stars": list(v.stars),
        }

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the text table; ``"rgb_array"``: the table drawn (every hand face up,
        the seat to play marked, the last step's events), ``H x W x 3`` uint8; ``"human"``:
        that picture in a window (printed as text where matplotlib has no window to open)."""
        if self.render_mode is None:
            return None
        if self.game is None:
            raise ValueError("call reset() before render()")
        if self.render_mode == "ansi":
            return render_table(self.game)
        from .render import frame

        picture = frame(table_snapshot(self.game, self.possible_agents, events=self._step_events))
        if self.render_mode == "rgb_array":
            return picture
        if self._window is None:
            from .render.window import Window

            self._window = Window(self.metadata["render_fps"])
        if not self._window.show(picture):
            print(render_table(self.game))
        return None

    def _draws(self) -> bool:
        return self.render_mode in ("rgb_array", "human")

    def _note_events(self) -> None:
        """Keep what the step did, for the drawn table (only when it is drawn)."""
        if self._events is not None:
            self._step_events = self._events.take(self.game)

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


class UniformRandom:
    """Picks uniformly among the legal actions from its own seeded generator: the Gymnasium
    wrapper's default opponent (``agents.RandomAgent`` plays the same draw)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return random_legal_action(self.rng, action_mask)


@dataclass
class Played:
    """What :func:`play_seats` played: every agent's rewards summed over those steps, and the
    summaries of the hands that ended (``hand_summary``)."""

    rewards: dict[str, float]
    hands: list[dict[str, Any]]


def play_seats(
    env: raw_env,
    choose: Callable[[int, dict[str, np.ndarray]], int],
    until: Callable[[int], bool] | None = None,
) -> Played:
    """The seat-driver loop: step ``env`` with ``choose(seat, observation)`` (the observation
    dict of the seat to play) until the game ends, or until ``until(seat)`` says the seat to
    play is driven elsewhere (a learner's seat). The Gymnasium wrapper, evaluation and
    ``crates play`` all drive their seats with it."""
    played = Played(dict.fromkeys(env.possible_agents, 0.0), [])
    g = env.game
    already = len(env.hand_summaries)
    while not g.game_over and not (until and until(g.to_play)):
        agent = env.possible_agents[g.to_play]
        env.step(int(choose(g.to_play, env.observe(agent))))
        for name in played.rewards:
            played.rewards[name] += env.rewards[name]
    played.hands = env.hand_summaries[already:]
    return played


def hand_summary(result: HandResult, rules: Ruleset) -> dict[str, Any]:
    """A finished hand as plain data (``raw_env.hand_summaries``); lists are per seat."""
    return {
        "hand_index": result.hand_index,
        "deal_size": result.deal_size,
        "ended_by": result.ended_by,
        "went_out": result.went_out,
        "card_points": list(result.card_points),
        "pressure_points": [
            result.pressure_points[rules.team_of(s)] for s in range(len(result.stars))
        ],
        "pressures": [result.pressures[rules.team_of(s)] for s in range(len(result.stars))],
        "points": [result.team_points[rules.team_of(s)] for s in range(len(result.stars))],
        "stars": list(result.stars),
    }


def step_info(hands: Sequence[dict[str, Any]], num_players: int) -> dict[str, Any]:
    """What an agent's info says of the hands that ended on a step (``hand_summary`` dicts;
    none: zeros), in the same keys and shapes at every step, numbers a replay buffer stacks
    (TorchRL, Tianshou): ``hands_ended`` (how many), ``hand_points`` (float64, per seat: the
    points its side took in them), ``ended_by`` (how the last ended: its index in
    ``crates_env.state.HAND_ENDINGS``, 0 for none) and ``went_out`` (the seat that went out
    in it, -1 for none). The full records are ``raw_env.hand_summaries``."""
    points = np.zeros(num_players, dtype=np.float64)
    for hand in hands:
        points += np.array(hand["points"], dtype=np.float64)  # pressures outgrow int64
    last = hands[-1] if hands else {"ended_by": "", "went_out": None}
    return {
        "hands_ended": len(hands),
        "hand_points": points,
        "ended_by": HAND_ENDINGS.index(last["ended_by"]),
        "went_out": -1 if last["went_out"] is None else last["went_out"],
    }


def render_table(g: Game, last_events: int = 6) -> str:
    """A text table of the position: seats, sizes, scores, top card, suit, count, direction."""
    v, rules = g.view(0), g.rules
    suit = SUIT_SYMBOLS[v.suit] if v.suit is not None else "-"
    top = pretty(v.top) if v.top is not None else "-"
    arrow = "clockwise" if v.direction == 1 else "counter-clockwise"
    of = f"/{rules.num_hands}" if rules.num_hands else ""
    hand = f"hand {v.hand_index + 1}{of}" if not g.game_over else f"{len(g.results)} hands played"
    lines = [
        f"{rules.preset} · {hand} · {v.deal_size} cards dealt · dealer p{v.dealer}",
        f"top {top}   suit {suit}   {arrow}   stock {v.stock_size}   discard {v.discard_size}"
        + (f"   COUNT {v.count}" if v.count else ""),
        "seat  cards  score  pressures",
    ]
    for s in range(rules.num_players):
        team = rules.team_of(s)
        mark = ">" if v.to_play == s else " "
        side = f" (team {team})" if rules.partnerships else ""
        pressures = v.pressures[team]
        lines.append(f"{mark}p{s}{side:>9}  {v.sizes[s]:>4}  {v.scores[team]:>5}  {pressures:>5}")
    if v.decision is not None:
        lines.append(f"p{v.to_play} {DECISION_WORDS[v.decision]}")
    else:
        lines.append("game over: " + game_result(table_snapshot(g)))
    lines.extend("  " + str(e) for e in g.events[-last_events:])
    return "\n".join(lines)
