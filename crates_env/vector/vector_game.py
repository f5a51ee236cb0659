"""``VectorGame``: B games of any rule system held in arrays and advanced in one compiled call.

It is the compiled twin of ``crates_v0.raw_env`` over the reference engine: the same keyword
arguments, the same deals for the same seeds (the streams are numpy's own PCG64, reproduced in
``crates_env.vector.rng``), the same action mask, observation and rewards at every step. The
differential tests and ``benchmarks/vector_equivalence.py`` hold it to that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..actions import NUM_ACTIONS
from ..batch import GameBatch, check_out
from ..cards import NUM_KINDS
from ..crates import play_masks
from ..eights import eights_masks
from ..game import Game, HandResult, best_scores, first_dealer, game_streams
from ..rules import (
    CardRole,
    DrawRule,
    EmptyStock,
    Engine,
    GameEnd,
    HandScoring,
    MisplayCard,
    Pressure,
    Ruleset,
    ThreeScoring,
    code,
)
from ..settings import EnvSettings
from ..state import HAND_ENDINGS, HandScore
from . import kernels
from .layout import (
    HAND_LOG,
    MAX_DECK,
    MAX_DRAWS,
    MAX_SCHEDULE,
    MAX_SEATS,
    RULES,
    STATE,
)
from .rng import STATE_WIDTH, export_state, import_state

_REFERENCE = "play it on the reference engine (crates_env.crates_v0.raw_env or crates_env.Game)"
# what a record the kernels cannot play is: not one reset, reset_as_env or from_game wrote
_NOT_A_GAME = "its record in states is no game dealt or loaded (reset, reset_as_env, from_game)"


class VectorGame(GameBatch):
    """``num_games`` games of one table, advanced together in compiled calls.

    ``VectorGame(1024, preset="zimbabwe", num_players=4, reward_timing="event")`` takes the
    keyword arguments of ``crates_v0.raw_env`` (ruleset options, ``reward_mode``,
    ``reward_scale``, ``reward_timing``, ``one_card``): every preset, its options and
    ``misplay_mode="penalize"``; a table it does not play (``check_supported``) or a bad option
    is a ``ValueError`` naming it. ``autoreset=True`` deals a finished game's slot a new game at
    once, its seed drawn from the slot's seed stream. The batch interface: ``GameBatch``; with
    ``penalize``, ``acceptable_mask()`` adds the misplays ``step`` accepts.
    """

    # a game's state, its streams, and its row of an observation and a mask when asked for
    BYTES_A_GAME = STATE.itemsize + 4096

    def __init__(
        self, num_games: int, preset: str = "crates", num_players: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(num_games, preset, num_players, **kwargs)
        num_games = self.num_games
        check_supported(self.rules)
        self.R = rules_record(self.rules, self.settings)
        names = kernels.OBS_SLICES
        layout, scales = self.observer.seat.layout(), self.observer.seat.scales()
        self._at = np.array([layout[name][0] for name in names], dtype=np.int64)
        self._scale = np.array([scales[name] for name in names], dtype=np.float64)
        self.states = np.zeros(num_games, dtype=STATE)
        # each slot's seed stream (rng rows): the seeds of the games autoreset deals it
        self._seed_streams = np.zeros((num_games, STATE_WIDTH), dtype=np.uint64)
        self._streaming = np.zeros(num_games, dtype=bool)
        self._fresh = _fresh_game(self.rules)
        self._seats_out = np.zeros(num_games, dtype=np.int32)  # to_play's

    # ------------------------------------------------------------------ starting games
    def _seed_slots(self, slots: np.ndarray, seeds: list[int]) -> None:
        for slot, seed in zip(slots, seeds, strict=True):
            self._seed_streams[slot] = export_state(np.random.default_rng([seed, 1]))
        self._streaming[slots] = True

    def _deal(self, slots: np.ndarray, seeds: list[int] | np.ndarray) -> None:
        """``Game.__init__`` for each slot: its two streams from its seed (``game_streams``,
        in compiled code: ``crates_env.vector.rng``), the first dealer, then the first deal."""
        seeds = np.asarray(seeds, dtype=np.int64)
        rows = np.zeros((len(slots), 2, STATE_WIDTH), dtype=np.uint64)
        kernels.seed_games(seeds, rows)
        self._deal_rows(slots, seeds, rows)

    def _deal_games(self, slots: np.ndarray, games: list[np.random.Generator]) -> None:
        rows = np.zeros((len(slots), 2, STATE_WIDTH), dtype=np.uint64)
        for row, game in zip(rows, games, strict=True):
            row[:] = [export_state(stream) for stream in game_streams(game)]
        self._deal_rows(slots, np.full(len(slots), -1, dtype=np.int64), rows)

    def _deal_rows(self, slots: np.ndarray, seeds: np.ndarray, rows: np.ndarray) -> None:
        """New games in ``slots`` from their streams (``rows``: deal and reshuffle streams)."""
        self.states[slots] = self._fresh
        self.states["dealer"][slots] = self._first_dealers(rows)
        self.states["rng"][slots] = rows
        self.seeds[slots] = seeds
        kernels.start_games(self.states, self.R, slots, self.rewards)
        self.game_over[slots] = self.states["game_over"][slots]
        self._check_overflow()

    def _first_dealers(self, rows: np.ndarray) -> np.ndarray:
        """``first_dealer`` of each game, from its deal stream (``rows[:, 0]``, advanced): a
        seat at random in one compiled call, the rules' seat, or drawn for deal."""
        r = self.rules
        seats = np.array(r.dealer_seats, dtype=np.int64)
        if r.dealer_rule == "random":
            return kernels.random_dealers(rows, seats)
        dealers = np.zeros(len(rows), dtype=np.int64)
        for i, row in enumerate(rows):
            deal_rng = import_state(row[0])
            dealers[i] = first_dealer(r, deal_rng, None, [])
            row[0] = export_state(deal_rng)
        return dealers

    def _load_game(self, game: Game, slot: int, paid: list[int]) -> None:
        rec = game_record(game)
        rec["paid"][: len(paid)] = paid
        self.states[slot] = rec
        self.game_over[slot] = game.game_over
        if not self._streaming[slot]:
            self._seed_streams[slot] = export_state(np.random.default_rng([slot, 2]))
            self._streaming[slot] = True

    def _copy_games(self, source: np.ndarray, target: np.ndarray) -> None:
        self.states[target] = self.states[source]
        self.game_over[target] = self.game_over[source]

    # ------------------------------------------------------------------ playing
    def _seats_to_play(self) -> np.ndarray:
        kernels.seats_to_play(self.states, self.R, self._seats_out)
        return self._seats_out

    def _legal_masks(self, games: np.ndarray, out: np.ndarray) -> None:
        kernels.legal_masks(self.states, self.R, games, out)

    def acceptable_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """int8 ``[B, 63]``: what ``step`` accepts from the seat to play in each game
        (``Game.acceptable_actions``): the legal actions, and with ``misplay_mode="penalize"``
        the misplays the rules penalise (``legal_mask`` stays the rule-abiding moves)."""
        shape = (self.num_games, NUM_ACTIONS)
        out = np.empty(shape, dtype=np.int8) if out is None else check_out(out, shape, np.int8)
        self._check_games()
        kernels.acceptable_masks(self.states, self.R, out)
        return out

    def _observe(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        kernels.observe_games(self.states, self.R, games, seats, self._at, self._scale, out)

    def step(
        self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        actions, active = self._step_input(actions, active)
        bad = kernels.first_unacceptable(self.states, self.R, actions, active)
        if bad >= 0:
            legal, accepted = self.legal_mask()[bad], self.acceptable_mask()[bad]
            self._refuse(bad, int(actions[bad]), legal, accepted)
        over = np.zeros(self.num_games, dtype=bool)
        kernels.step_games(self.states, self.R, actions, active, self.rewards, over)
        self._check_overflow()
        ended = over & ~self.game_over
        self.game_over |= over
        rewards = self.rewards.copy()
        if self.autoreset and ended.any():
            self._restart(np.flatnonzero(ended))
        return rewards, ended

    def _restart(self, slots: np.ndarray) -> None:
        for slot in slots[~self._streaming[slots]]:  # a slot neither reset nor loaded
            self._seed_streams[slot] = export_state(np.random.default_rng([slot, 2]))
            self._streaming[slot] = True
        seeds = np.zeros(len(slots), dtype=np.int64)
        kernels.next_seeds(self._seed_streams, slots, seeds)
        self._deal(slots, seeds)

    def _random_actions(self, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        out = np.zeros(self.num_games, dtype=np.int64)
        kernels.random_legal(mask, draws, out)
        return out

    def _play_random_seats(
        self, random_seats: np.ndarray, paid_to: np.ndarray, rng: np.random.Generator, games
    ) -> np.ndarray:
        random_seats = random_seats.view(np.uint8)
        row = export_state(rng)
        totals = np.zeros(self.num_games)
        stuck = kernels.play_random_seats(
            self.states, self.R, games, random_seats, row, paid_to, self.rewards, totals
        )
        rng.bit_generator.state = import_state(row).bit_generator.state
        if stuck >= 0:  # a record no game reaches: the kernel stopped rather than spin
            raise ValueError(f"game {stuck} has no legal move but is not over: {_NOT_A_GAME}")
        self._check_overflow()
        self.game_over[games] = self.states["game_over"][games]
        return totals

    # ------------------------------------------------------------------ results
    def _scores(self) -> np.ndarray:
        return self.states["scores"][:, : self.rules.num_teams].copy()

    def _stars(self) -> np.ndarray:
        return self.states["stars"][:, : self.num_players].astype(np.int64)

    def _pressures_taken(self) -> np.ndarray:
        return self.states["pressure_count"][:, : self.rules.num_teams].copy()

    def _hands_played(self) -> np.ndarray:
        return self.states["hand_index"].copy()

    def _winners(self, slot: int) -> list[int]:
        g = self.states[slot]
        if self.rules.game_end == "last_player":
            return np.flatnonzero(g["active"][: self.num_players]).tolist()
        teams = self.rules.num_teams
        return best_scores(self.rules, g["scores"][:teams].tolist(), g["stars"][:teams].tolist())

    def _standing(self, slot: int) -> list[float]:
        return self._standings()[slot].tolist()

    def _standings(self) -> np.ndarray:
        teams = self.rules.num_teams
        if self.rules.game_end == "last_player":
            out = self.states["out_hand"][:, :teams]
            still_in = self.states["hands_scored"][:, None] + 1
            return np.where(out >= 0, out, still_in).astype(np.float64)
        # signed in ints, as Ruleset.standing does: no -0.0 for a side on nothing
        return (self.rules.point_sign * self.states["scores"][:, :teams]).astype(np.float64)

    def _last_hands(self) -> tuple[np.ndarray, np.ndarray]:
        played = self.states["hand_index"]
        at = (played - 1) % HAND_LOG
        rows = np.arange(self.num_games)
        some = played > 0
        ended_by = np.where(some, self.states["log_ended_by"][rows, at], 0).astype(np.int64)
        went_out = np.where(some, self.states["log_went_out"][rows, at], -1).astype(np.int64)
        return ended_by, went_out

    def _hand_log(self, slot: int, first: int) -> list[HandScore]:
        """A game keeps its last ``HAND_LOG`` hands: read them after every move (a ValueError
        for older ones)."""
        g = self.states[slot]
        last = int(g["hand_index"])
        first = self._check_first(first, last)
        if first < last - HAND_LOG:
            raise ValueError(
                f"game {slot} keeps its last {HAND_LOG} hands ({last - HAND_LOG}..{last - 1}), "
                f"not hand {first}: read hand_log after every move"
            )
        teams, n = self.rules.num_teams, self.num_players
        scores = []
        for h in range(first, last):
            at = h % HAND_LOG
            went_out = int(g["log_went_out"][at])
            scores.append(
                HandScore(
                    h,
                    int(g["log_deal_size"][at]),
                    HAND_ENDINGS[g["log_ended_by"][at]],
                    None if went_out < 0 else went_out,
                    tuple(g["log_points"][at, :teams].tolist()),
                    tuple(g["log_pressure_points"][at, :teams].tolist()),
                    tuple(g["log_seat_pressures"][at, :n].tolist()),
                )
            )
        return scores

    def _truncated(self) -> np.ndarray:
        return self.states["truncated"].copy()

    @staticmethod
    def _mask_problems(mask: np.ndarray) -> tuple[bool, int]:
        problem, game = kernels.check_mask(mask)
        return problem != kernels.NOT_ZERO_ONE, game if problem == kernels.NOTHING_ALLOWED else -1

    def _check_overflow(self) -> None:
        bad = np.flatnonzero(self.states["overflow"])
        if bad.size:
            raise OverflowError(
                f"game {bad[0]}: a side took more than 58 pressures, whose value passes the "
                f"compiled engine's 64-bit scores; {_REFERENCE}"
            )


def _blank(rules: Ruleset) -> np.ndarray:
    """A record with nothing dealt: every seat in, nothing pending (-1 where the reference
    engine holds None)."""
    rec = np.zeros((), dtype=STATE)
    rec["active"][: rules.num_players] = True
    rec["out_hand"] = -1
    for name in ("went_out", "decision", "suit", "rank", "pending_kind", "chooser", "forced"):
        rec[name] = -1
    rec["once_seat"] = -1
    return rec


def _fresh_game(rules: Ruleset) -> np.ndarray:
    """A game before its first deal (``GameState.new``): the rules' starting scores and
    mulligans; the dealer and the streams are each game's."""
    rec = _blank(rules)
    rec["scores"][: rules.num_teams] = rules.initial_scores
    rec["last_direction"] = 1
    rec["mulligans_left"][list(rules.mulligans)] = True
    return rec


def game_record(game: Game) -> np.ndarray:
    """The record of a reference game: its three state values field for field, cards as
    kinds, and its two random streams."""
    r, deck = game.rules, game.deck
    kinds = deck.kinds
    gs, hs, ts = game.state
    rec = _blank(r)
    n, teams = r.num_players, r.num_teams
    rec["hand_index"], rec["dealer"] = gs.hand_index, gs.dealer
    rec["scores"][:teams] = gs.scores
    rec["stars"][:n] = gs.stars
    rec["pressure_count"][:teams] = gs.pressure_count
    rec["last_direction"] = gs.last_direction
    rec["game_over"], rec["truncated"] = gs.over, gs.truncated
    rec["active"][:n] = gs.active
    for i, result in enumerate(gs.results):  # what final_standing reads
        rec["out_hand"][result.eliminated] = i
    rec["hands_scored"] = len(gs.results)
    rec["deal_size"] = hs.deal_size
    for s, mask in enumerate(hs.hands):
        for k in deck.kinds_in(mask):
            rec["counts"][s, k] += 1
        rec["held"][s] = deck.kind_bits(mask)
    rec["sizes"][:n] = hs.sizes
    rec["stock"][: len(hs.stock)] = [kinds[i] for i in hs.stock]
    rec["n_stock"] = len(hs.stock)
    rec["discard"][: len(hs.discard)] = [kinds[i] for i in hs.discard]
    rec["n_discard"] = len(hs.discard)
    rec["played"] = hs.played
    rec["pressure_points"][:teams] = hs.pressure_points
    rec["pressures"][:teams] = hs.pressures
    rec["seat_pressures"][:n] = hs.seat_pressures
    rec["direction"] = hs.direction
    rec["suit"] = _or_none(hs.suit)
    rec["rank"] = _or_none(hs.rank)
    rec["free_play"], rec["hand_over"] = hs.free_play, hs.over
    rec["ended_by"] = HAND_ENDINGS.index(hs.ended_by)
    rec["went_out"] = _or_none(hs.went_out)
    rec["decisions"] = hs.decisions
    rec["seat"] = ts.seat
    rec["decision"] = _or_none(ts.decision)
    rec["suit_choices"] = sum(1 << s for s in ts.suit_choices)
    if r.engine == "eights":
        _eights_record(rec, game)
    else:
        _crates_record(rec, game)
    rec["rng"][0] = export_state(game.deal_rng)
    rec["rng"][1] = export_state(game.rng)
    _log_results(rec, gs.results)
    return rec


def _log_results(rec: np.ndarray, results: Sequence[HandResult]) -> None:
    """A loaded game's hand log: its last ``HAND_LOG`` results."""
    for result in results[-HAND_LOG:]:
        h = result.hand_index % HAND_LOG
        teams, seats = len(result.team_points), len(result.seat_pressures)
        rec["log_deal_size"][h] = result.deal_size
        rec["log_ended_by"][h] = HAND_ENDINGS.index(result.ended_by)
        rec["log_went_out"][h] = -1 if result.went_out is None else result.went_out
        rec["log_points"][h, :teams] = result.team_points
        rec["log_pressure_points"][h, :teams] = result.pressure_points
        rec["log_seat_pressures"][h, :seats] = result.seat_pressures


def _crates_record(rec: np.ndarray, game: Game) -> None:
    """The Crates family's fields (``CratesGameState``, ``CratesHand``, ``CratesTurn``)."""
    gs, hs, ts = game.state
    n, deck = game.rules.num_players, game.deck
    for s in gs.mulligans_left:
        rec["mulligans_left"][s] = True
    rec["count"] = hs.count
    rec["out_order"][: len(hs.out_order)] = hs.out_order
    rec["n_out"] = len(hs.out_order)
    rec["penalty_owed"][:n] = hs.penalty_owed
    rec["ha_ha"], rec["jack_run"], rec["series_left"] = hs.ha_ha, hs.jack_run, hs.series_left
    rec["call_on_deal"][:n] = hs.call_on_deal
    rec["revoke_points"][: len(hs.revoke_points)] = hs.revoke_points
    for s, mask in enumerate(hs.exposed):
        for k in deck.kinds_in(mask):
            rec["exposed"][s, k] += 1
        rec["exposed_held"][s] = deck.kind_bits(mask)
    rec["plays"], rec["called"], rec["call_missed"] = ts.plays, ts.called, ts.call_missed
    rec["announced"], rec["cooper_draw"] = ts.announced, ts.cooper_draw
    rec["six_missed"] = ts.six_missed
    if ts.pending is not None:
        rec["pending_kind"], rec["pending_plain"] = ts.pending
    rec["chooser"], rec["forced"] = _or_none(ts.chooser), _or_none(ts.forced)


def _eights_record(rec: np.ndarray, game: Game) -> None:
    """The Crazy Eights family's fields (``EightsHand``, ``EightsTurn``)."""
    _, hs, ts = game.state
    rec["demand"], rec["skips"], rec["declared"] = hs.demand, hs.skips, hs.declared
    rec["passes"], rec["once_seat"], rec["shared"] = hs.passes, _or_none(hs.once_seat), hs.shared
    rec["group_mask"] = game.deck.kind_bits(ts.group_mask)
    group = ts.group
    if group is not None:
        rec["group_count"], rec["group_base"] = group.count, group.base
        rec["group_suit_before"] = _or_none(group.suit_before)
        rec["group_on_declared"] = group.on_declared


def _or_none(value: int | None) -> int:
    """A seat, suit, rank, kind or decision as the record holds it: None is -1."""
    return -1 if value is None else int(value)


def check_supported(rules: Ruleset) -> None:
    """A ValueError naming what the compiled engine does not play: every rule system fits its
    records but a deal schedule longer than ``MAX_SCHEDULE`` hands."""
    if len(rules.schedule) > MAX_SCHEDULE:
        raise ValueError(
            f"VectorGame plays deal schedules of up to {MAX_SCHEDULE} hands, not "
            f"{len(rules.schedule)}; {_REFERENCE}"
        )
    if rules.num_players > MAX_SEATS or rules.deck.size > MAX_DECK:
        raise ValueError(
            f"VectorGame plays up to {MAX_SEATS} seats and {MAX_DECK} cards; {_REFERENCE}"
        )


def rules_record(rules: Ruleset, settings: EnvSettings | None = None) -> np.record:
    """The rules and the environment's ``settings`` (default: ``EnvSettings()``) as the kernels
    read them: ``layout.RULES``, from the resolved fields."""
    check_supported(rules)
    settings = settings or EnvSettings()
    deck, n = rules.deck, rules.num_players
    R = np.zeros(1, dtype=RULES)
    R["engine"] = code(Engine, rules.engine)
    R["n"], R["teams"], R["partnerships"] = n, rules.num_teams, rules.partnerships
    R["deck_size"] = deck.size
    R["deck_kinds"][0, : deck.size] = deck.kinds
    R["full_mask"] = deck.kind_bits(deck.full_mask)
    R["schedule"][0, : len(rules.schedule)] = rules.schedule
    R["schedule_len"] = len(rules.schedule)
    R["max_hands"] = rules.max_hands
    R["max_decisions"] = rules.max_decisions_per_hand
    R["dealer_seats"][0, list(rules.dealer_seats)] = True
    R["dummy_seat"] = -1 if rules.dummy_seat is None else rules.dummy_seat
    R["initial_scores"][0, : rules.num_teams] = rules.initial_scores
    R["initial_mulligans"][0, list(rules.mulligans)] = True
    R["game_end"] = code(GameEnd, rules.game_end)
    R["target_score"] = rules.target_score
    R["hand_scoring"] = code(HandScoring, rules.hand_scoring)
    R["empty_stock"] = code(EmptyStock, rules.empty_stock)
    if rules.engine == "eights":
        _eights_cards(R, rules)
    else:
        _crates_cards(R, rules)
    R["kind_points"][0] = rules.kind_points[:NUM_KINDS]
    R["by_points"][0] = sorted(range(NUM_KINDS), key=lambda k: -rules.kind_points[k])
    R["three_scoring"] = code(ThreeScoring, rules.three_scoring)
    R["all_threes"][0, : len(rules.all_threes)] = rules.all_threes
    R["n_all_threes"] = len(rules.all_threes)
    R["pressure"] = code(Pressure, rules.pressure)
    R["empty_hand_points"] = rules.empty_hand_points
    R["stars"] = rules.stars
    R["point_sign"] = rules.point_sign
    R["count_continues_hand"] = rules.count_continues_hand
    R["free_play_after_count"] = rules.free_play_after_count
    R["nine_starter_any_suit"] = rules.nine_starter_any_suit
    R["one_card_per_turn"] = rules.one_card_per_turn
    R["one_card_last_six"] = rules.one_card_last_six
    R["call_on_one_card_deal"] = rules.call_on_one_card_deal
    R["idiot_card"] = rules.missed_call == "idiot_card"
    R["penalty_drawn_at_end"] = rules.penalty_drawn_at_end
    R["deal_follows_direction"] = rules.deal_follows_direction
    R["penalize"] = rules.misplay_mode == "penalize"
    R["misplay_card"] = code(MisplayCard, rules.misplay_card)
    R["revoke_points"] = rules.revoke_points
    R["dumbass_calls"] = rules.dumbass_calls
    R["reward_mode"] = settings.mode
    R["reward_scale"] = settings.reward_scale
    R["pressures_at_once"] = settings.pressures_at_once
    R["auto_announce"] = settings.auto_announce
    return R[0]


def _crates_cards(R: np.ndarray, rules: Ruleset) -> None:
    """The Crates family's cards: what may be played (the reference engine's ``play_masks``,
    over kinds instead of card ids) and each kind's ``CardFunction``."""
    deck = rules.deck
    plays = play_masks(deck)
    for suit in range(4):
        for rank in range(13):
            R["match"][0, suit, rank] = deck.kind_bits(plays.match[suit][rank])
    R["count_mask"] = deck.kind_bits(plays.count)
    R["six_mask"] = deck.kind_bits(plays.six)
    for kind, function in enumerate(rules.card_functions):
        if len(function.draws) > MAX_DRAWS:
            raise ValueError(f"card {kind} draws for more than {MAX_DRAWS} seats")
        R["n_draws"][0, kind] = len(function.draws)
        for i, (seat, cards) in enumerate(function.draws):
            R["draw_seat"][0, kind, i] = seat
            R["draw_cards"][0, kind, i] = cards
        R["per_jack"][0, kind] = function.per_jack
        R["next_player"][0, kind] = function.next_player
        R["reverses"][0, kind] = function.reverses
        R["again"][0, kind] = function.again
        R["series"][0, kind] = function.series


def _eights_cards(R: np.ndarray, rules: Ruleset) -> None:
    """The Crazy Eights family's cards: the reference engine's ``eights_masks`` over kinds,
    each kind's role and demand, and how a turn's draw goes on."""
    deck = rules.deck
    masks = eights_masks(deck, rules)
    for suit in range(4):
        for rank in range(13):
            R["match"][0, suit, rank] = deck.kind_bits(masks.match[suit][rank])
    R["role"][0] = [code(CardRole, role) for role in masks.roles]
    R["demand"][0] = masks.demands
    R["answers"] = deck.kind_bits(masks.answers)
    R["on_joker"] = deck.kind_bits(masks.on_joker)
    R["skip_mask"] = deck.kind_bits(masks.skip)
    R["free_after"] = sum(1 << k for k in masks.free_after)
    R["rank_kinds"][0] = [deck.kind_bits(deck.rank_mask[rank]) for rank in range(13)]
    R["joker_kinds"] = deck.kind_bits(deck.joker_mask)
    R["draw_rule"] = code(DrawRule, rules.draw_rule)
    R["multi_card_plays"] = rules.multi_card_plays
    R["in_air"] = rules.in_air
    R["eight_counter_keeps_suit"] = rules.eight_counter_keeps_suit
    R["eight_must_change_suit"] = rules.eight_must_change_suit


__all__ = ["VectorGame", "check_supported", "game_record", "rules_record"]
