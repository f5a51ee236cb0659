"""The compiled engine's data: a game is one record of ``STATE``, a rule system one of ``RULES``.

The records mirror the reference engine's three state values (``crates_env.state``: game, hand,
turn, with the fields of both families: ``crates_env.crates`` and ``crates_env.eights``) field
for field, with two changes that make them fixed-size arrays:

- cards are *kinds* (``crates_env.cards``), not physical ids: a hand is a count per kind
  (``counts``) plus a bitmask of the kinds held (``held``, 53 bits), the stock and the discard pile
  are arrays of kinds. Which copy of a kind a player holds never changes what happens (a play
  takes any copy, a reshuffle permutes positions), so the kinds follow the reference exactly;
- ``None`` is -1, flags in arrays are uint8 (numba has no nested bool arrays), and every
  per-seat or per-team array has room for ``MAX_SEATS``.

One record dtype serves every rule system, so numba compiles the kernels once. A batch of
games is a numpy array of records: copying a record copies a game (``VectorGame.copy_games``).
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_KINDS
from ..state import HAND_ENDINGS

MAX_SEATS = 12  # craits seats up to twelve
MAX_DECK = 120  # two packs and their Jokers (zimbabwe: up to 8 a pack)
MAX_SCHEDULE = 64  # deal sizes in one game's schedule
MAX_DRAWS = MAX_SEATS  # (seat, cards) entries of one card function (a 5 hits everybody else)
HAND_LOG = 4  # finished hands each game keeps (VectorGame.hand_log), read after every move

# ended_by: crates_env.state.HAND_ENDINGS's codes
OUT, COUNT, PRESSURE, TRUNCATED, BLOCKED, STALLED = map(
    HAND_ENDINGS.index, ("out", "count", "pressure", "truncated", "blocked", "stalled")
)

_SEATS, _DECK = (MAX_SEATS,), (MAX_DECK,)

STATE = np.dtype(
    [
        # --- the game (GameState)
        ("hand_index", np.int32),
        ("dealer", np.int32),
        ("scores", np.int64, _SEATS),  # per team
        ("stars", np.int32, _SEATS),
        ("pressure_count", np.int32, _SEATS),  # per team, this game
        ("last_direction", np.int32),
        ("game_over", np.bool_),
        ("truncated", np.bool_),
        ("overflow", np.bool_),  # a pressure's value passed int64: play it on the reference
        ("mulligans_left", np.uint8, _SEATS),
        ("active", np.uint8, _SEATS),  # per seat: still in the game (zimbabwe knocks out)
        ("out_hand", np.int32, _SEATS),  # per seat: the result it was knocked out in, -1: none
        ("hands_scored", np.int32),  # results written in this game (len(GameState.results))
        # --- the hand (HandState, CratesHand)
        ("deal_size", np.int32),
        ("counts", np.int8, (MAX_SEATS, NUM_KINDS)),  # per seat and kind: copies held
        ("held", np.uint64, _SEATS),  # per seat: bit k set while a kind k is held
        ("sizes", np.int32, _SEATS),
        ("stock", np.int8, _DECK),  # kinds, top last
        ("n_stock", np.int32),
        ("discard", np.int8, _DECK),  # kinds, bottom first
        ("n_discard", np.int32),
        ("played", np.int32, (NUM_KINDS,)),
        ("pressure_points", np.int64, _SEATS),  # per team, this hand
        ("pressures", np.int32, _SEATS),  # per team, this hand
        ("seat_pressures", np.int32, _SEATS),
        ("direction", np.int32),
        ("suit", np.int32),  # -1: nothing to follow
        ("rank", np.int32),
        ("free_play", np.bool_),
        ("hand_over", np.bool_),
        ("ended_by", np.int32),
        ("went_out", np.int32),
        ("decisions", np.int32),
        ("count", np.int32),
        ("out_order", np.int32, _SEATS),  # seats out during the count, in order
        ("n_out", np.int32),
        ("penalty_owed", np.uint8, _SEATS),
        ("ha_ha", np.bool_),
        ("jack_run", np.int32),
        ("series_left", np.int32),
        ("call_on_deal", np.uint8, _SEATS),
        ("revoke_points", np.int64, _SEATS),  # per team (kreights, penalize)
        ("exposed", np.int8, (MAX_SEATS, NUM_KINDS)),  # per seat and kind: penalty cards
        ("exposed_held", np.uint64, _SEATS),  # per seat: bit k set while a kind k is exposed
        # the Crazy Eights family's hand (EightsHand)
        ("demand", np.int32),
        ("skips", np.int32),
        ("declared", np.bool_),
        ("passes", np.int32),
        ("once_seat", np.int32),  # -1: none
        ("shared", np.bool_),
        # --- the turn (TurnState, CratesTurn, EightsTurn)
        ("seat", np.int32),
        ("decision", np.int32),  # a Decision, -1: none
        ("suit_choices", np.int32),  # bit s: suit s may be named
        ("plays", np.int32),
        ("called", np.bool_),
        ("call_missed", np.bool_),
        ("announced", np.bool_),
        ("cooper_draw", np.int32),
        ("six_missed", np.bool_),
        ("pending_kind", np.int32),
        ("pending_plain", np.bool_),
        ("chooser", np.int32),  # who picks a penalty card for the player on turn, -1: none
        ("forced", np.int32),  # the penalty card picked, -1: none
        # the group of cards of one rank being played (EightsTurn.group; 0 cards: none)
        ("group_count", np.int32),
        ("group_base", np.int32),  # the top card before the group
        ("group_suit_before", np.int32),
        ("group_on_declared", np.bool_),
        ("group_mask", np.uint64),  # the kinds that may join the group
        # --- the two random streams (deals, reshuffles): crates_env.vector.rng rows
        ("rng", np.uint64, (2, 6)),
        # --- the environment: pressure points of this hand already paid as rewards
        ("paid", np.int64, _SEATS),
        # --- the last HAND_LOG finished hands, hand h at h % HAND_LOG (HandScore's fields)
        ("log_deal_size", np.int32, (HAND_LOG,)),
        ("log_ended_by", np.int32, (HAND_LOG,)),
        ("log_went_out", np.int32, (HAND_LOG,)),
        ("log_points", np.int64, (HAND_LOG, MAX_SEATS)),  # per team
        ("log_pressure_points", np.int64, (HAND_LOG, MAX_SEATS)),  # per team
        ("log_seat_pressures", np.int32, (HAND_LOG, MAX_SEATS)),
    ],
    align=True,
)

RULES = np.dtype(
    [
        ("engine", np.int32),  # crates_env.rules.Engine
        ("n", np.int32),
        ("teams", np.int32),
        ("partnerships", np.bool_),
        ("deck_size", np.int32),
        ("deck_kinds", np.int8, _DECK),  # the kind of each physical card id
        ("full_mask", np.uint64),  # the kinds in the deck
        ("schedule", np.int32, (MAX_SCHEDULE,)),
        ("schedule_len", np.int32),
        ("max_hands", np.int32),
        ("max_decisions", np.int32),
        ("dealer_seats", np.uint8, _SEATS),
        ("dummy_seat", np.int32),  # Figgy's seat (skill_hand_world_series), -1: none
        ("game_end", np.int32),  # crates_env.rules.GameEnd
        ("target_score", np.int64),
        ("hand_scoring", np.int32),  # crates_env.rules.HandScoring
        ("empty_stock", np.int32),  # crates_env.rules.EmptyStock
        ("initial_scores", np.int64, _SEATS),
        ("initial_mulligans", np.uint8, _SEATS),
        # cards: what may be played (kind masks) and what each kind does
        ("match", np.uint64, (4, 13)),  # on suit and rank, outside the count
        ("count_mask", np.uint64),
        ("six_mask", np.uint64),
        ("n_draws", np.int32, (NUM_KINDS,)),
        ("draw_seat", np.int32, (NUM_KINDS, MAX_DRAWS)),
        ("draw_cards", np.int32, (NUM_KINDS, MAX_DRAWS)),
        ("per_jack", np.uint8, (NUM_KINDS,)),
        ("next_player", np.int32, (NUM_KINDS,)),
        ("reverses", np.uint8, (NUM_KINDS,)),
        ("again", np.uint8, (NUM_KINDS,)),
        ("series", np.int32, (NUM_KINDS,)),
        # the Crazy Eights family's cards (crates_env.eights.EightsMasks, over kinds)
        ("role", np.int32, (NUM_KINDS,)),  # crates_env.rules.CardRole
        ("demand", np.int32, (NUM_KINDS,)),
        ("answers", np.uint64),
        ("on_joker", np.uint64),
        ("skip_mask", np.uint64),
        ("free_after", np.uint64),
        ("rank_kinds", np.uint64, (13,)),  # the kinds of each rank (a group's cards)
        ("joker_kinds", np.uint64),
        ("draw_rule", np.int32),  # crates_env.rules.DrawRule
        ("multi_card_plays", np.bool_),
        ("in_air", np.bool_),
        ("eight_counter_keeps_suit", np.bool_),
        ("eight_must_change_suit", np.bool_),
        # scoring
        ("kind_points", np.int64, (NUM_KINDS,)),
        ("by_points", np.int32, (NUM_KINDS,)),  # the kinds, highest value first
        ("three_scoring", np.int32),  # crates_env.rules.ThreeScoring
        ("all_threes", np.int64, (8,)),
        ("n_all_threes", np.int32),
        ("pressure", np.int32),  # crates_env.rules.Pressure
        ("empty_hand_points", np.int64),
        ("stars", np.bool_),
        ("point_sign", np.int32),  # Ruleset.point_sign: -1, points are a cost
        # the family's procedural switches
        ("count_continues_hand", np.bool_),
        ("free_play_after_count", np.bool_),
        ("nine_starter_any_suit", np.bool_),
        ("one_card_per_turn", np.bool_),
        ("one_card_last_six", np.bool_),
        ("call_on_one_card_deal", np.bool_),
        ("idiot_card", np.bool_),
        ("penalty_drawn_at_end", np.bool_),
        ("deal_follows_direction", np.bool_),
        # misplay_mode="penalize" (crates_env.misplays)
        ("penalize", np.bool_),
        ("misplay_card", np.int32),  # crates_env.rules.MisplayCard
        ("revoke_points", np.int64),
        ("dumbass_calls", np.bool_),
        # the environment
        ("reward_mode", np.int32),  # crates_env.settings.RewardMode
        ("reward_scale", np.float64),
        ("pressures_at_once", np.bool_),
        ("auto_announce", np.bool_),
    ],
    align=True,
)
