"""The batch interface on both engines: ``ReferenceGames`` and ``VectorGame`` play the same
games move for move (a differential test), and ``game_batch`` picks the compiled engine
wherever it plays the table."""

from __future__ import annotations

import numpy as np
import pytest

from crates_env import new_game
from crates_env.batch import ReferenceGames
from crates_env.engine_choice import compiled_refusal, game_batch
from crates_env.env import raw_env
from crates_env.rules import make_ruleset
from crates_env.vector import VectorGame
from tests.test_vector import TABLES

# every rule system: the Crates family, misplay penalties, Crazy Eights and Zimbabwe
SAMPLE = [TABLES[i] for i in (0, 1, 3, 6, 7, 10, 12, 15, 20, 23, 25, 28)]


def _same_position(ref: ReferenceGames, vg: VectorGame, live: np.ndarray) -> None:
    assert np.array_equal(ref.to_play[live], vg.to_play[live])
    assert np.array_equal(ref.legal_mask(), vg.legal_mask())
    assert np.array_equal(ref.observe()[live], vg.observe()[live])
    assert np.array_equal(ref.scores, vg.scores)
    assert np.array_equal(ref.hands_played, vg.hands_played)
    assert np.array_equal(ref.pressures_taken, vg.pressures_taken)
    assert np.array_equal(ref.stars, vg.stars)
    assert np.array_equal(ref.last_hands(), vg.last_hands())


@pytest.mark.parametrize(("preset", "n", "options"), SAMPLE, ids=[str(t) for t in SAMPLE])
def test_both_engines_play_the_same_games_move_for_move(preset, n, options):
    """Random legal moves from the same seeds: the same seat to play, mask, observation,
    rewards, ends of games and hand scores, and (autoreset) the same next games."""
    kwargs = {"preset": preset, "num_players": n, **options}
    ref, vg = ReferenceGames(6, **kwargs), VectorGame(6, **kwargs)
    ref.reset(seeds=11)
    vg.reset(seeds=11)
    rng = np.random.default_rng(0)
    hands = np.zeros(6, dtype=int)
    finished = 0  # hands
    for _ in range(600):
        live = ~vg.game_over
        _same_position(ref, vg, live)
        actions = vg.random_actions(rng)
        rewards, ended = ref.step(actions)
        vrewards, vended = vg.step(actions)
        assert np.array_equal(rewards, vrewards) and np.array_equal(ended, vended)
        assert np.array_equal(ref.seeds, vg.seeds)  # autoreset: the same next seeds
        for i in range(6):
            if ended[i]:
                hands[i] = 0  # a new game in the slot
            log = ref.hand_log(i, int(hands[i]))
            assert vg.hand_log(i, int(hands[i])) == log
            hands[i] += len(log)
            finished += len(log)
    assert finished >= 4


def test_finished_games_keep_their_results_on_both_engines():
    kwargs = {"preset": "crates", "num_players": 3, "deal_schedule": [3, 2]}
    auto = ReferenceGames(4, **kwargs), VectorGame(4, **kwargs)
    for batch in auto:
        batch.reset(seeds=2)
    rng = np.random.default_rng(3)
    for _ in range(150):  # several games a slot
        actions = auto[1].random_actions(rng)
        assert np.array_equal(auto[0].step(actions)[1], auto[1].step(actions)[1])
        assert np.array_equal(auto[0].seeds, auto[1].seeds)
    assert not np.array_equal(auto[1].seeds, [2, 3, 4, 5])
    ref = ReferenceGames(4, autoreset=False, **kwargs)
    vg = VectorGame(4, autoreset=False, **kwargs)
    ref.reset(seeds=[5, 6, 7, 8])
    vg.reset(seeds=[5, 6, 7, 8])
    rng = np.random.default_rng(1)
    while not vg.game_over.all():
        actions = vg.random_actions(rng)
        ref.step(actions, active=~vg.game_over)
        vg.step(actions, active=~vg.game_over)
    assert ref.game_over.all()
    for i in range(4):
        assert ref.winners(i) == vg.winners(i)
        assert ref.standing(i) == vg.standing(i)
        assert ref.hand_log(i, 0) == vg.hand_log(i, 0)
        assert [h.hand_index for h in vg.hand_log(i, 0)] == [0, 1]
    assert np.array_equal(ref.truncated, vg.truncated)


@pytest.mark.parametrize("preset", ["crates", "zimbabwe"])
def test_both_engines_tell_the_standings_of_games_in_play(preset):
    """``standings``, every game's standing after every move: points as the preset counts them,
    or in zimbabwe the hand a player was knocked out in (those left: one more than played)."""
    kwargs = {"preset": preset, "num_players": 4, "autoreset": False}
    ref, vg = ReferenceGames(6, **kwargs), VectorGame(6, **kwargs)
    ref.reset(seeds=range(6))
    vg.reset(seeds=range(6))
    rng = np.random.default_rng(0)
    seen = set()
    while not vg.game_over.all():
        actions = vg.random_actions(rng)
        ref.step(actions, active=~vg.game_over)
        vg.step(actions, active=~vg.game_over)
        assert np.array_equal(ref.standings, vg.standings)
        seen.update(map(tuple, vg.standings.tolist()))
        assert [vg.standing(i) for i in range(6)] == vg.standings.tolist()
    if preset == "zimbabwe":  # before the first hand's end, everybody is still in (1.0)
        assert (1.0, 1.0, 1.0, 1.0) in seen and all(max(s) >= 2 for s in vg.standings)
    else:
        assert np.array_equal(vg.standings, -vg.scores)  # fewer points stand better


def test_a_loaded_position_and_its_copies_play_on_alike():
    """from_game then copy_games: every copy plays on as the original, on both engines, with
    the loaded game's finished hands in the log."""
    env = raw_env(preset="crates", num_players=4, reward_timing="event")
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    while env.game.hand_index < 2:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    kwargs = {"preset": "crates", "num_players": 4, "reward_timing": "event", "autoreset": False}
    ref, vg = ReferenceGames(3, **kwargs), VectorGame(3, **kwargs)
    for batch in (ref, vg):
        batch.from_game(env.game, 0, paid=env.paid_pressure_points)
        batch.copy_games([0, 0], [1, 2])
        assert batch.hand_log(0, 0) == ref.hand_log(0, 0)
    assert len(ref.hand_log(0, 0)) == 2
    for _ in range(30):
        _same_position(ref, vg, ~vg.game_over)
        actions = vg.random_actions(rng)
        assert np.array_equal(ref.step(actions)[0], vg.step(actions)[0])
    assert ref.game(0) is not ref.game(1)


def test_random_seats_pay_the_seat_named_and_stop_at_the_others():
    kwargs = {"preset": "crates", "num_players": 4, "deal_schedule": [4, 3]}
    for batch in (ReferenceGames(5, **kwargs), VectorGame(5, **kwargs)):
        batch.reset(seeds=1)
        seats = np.zeros((5, 4), dtype=bool)
        seats[:, 1:] = True  # seat 0 decides
        totals = batch.play_random_seats(
            seats, np.zeros(5, dtype=np.int64), np.random.default_rng(0)
        )
        assert ((batch.to_play == 0) | batch.game_over).all()
        assert totals.shape == (5,)


def test_game_batch_takes_the_compiled_engine_where_it_plays_the_table():
    assert isinstance(game_batch(2, preset="crates", num_players=4), VectorGame)
    assert isinstance(game_batch(2, "reference", preset="crates"), ReferenceGames)
    eights = game_batch(2, preset="crazy_eights", num_players=4, autoreset=False)
    if compiled_refusal(make_ruleset("crazy_eights", 4)):
        assert isinstance(eights, ReferenceGames)
        with pytest.raises(ValueError, match="engine='vector' cannot play this table"):
            game_batch(2, "vector", preset="crazy_eights", num_players=4)
    with pytest.raises(ValueError, match="engine='fast' is not valid; use one of auto, vector"):
        game_batch(2, "fast")


def test_the_reference_batch_refuses_bad_input_and_moves_nothing():
    ref = ReferenceGames(2, preset="crates", num_players=2, autoreset=False)
    ref.reset(seeds=[1, 2])
    before = ref.observe()
    mask = ref.legal_mask()
    illegal = np.array([int(np.flatnonzero(mask[0] == 0)[0]), int(np.flatnonzero(mask[1])[0])])
    with pytest.raises(ValueError, match="game 0: illegal action"):
        ref.step(illegal)
    assert np.array_equal(ref.observe(), before)
    with pytest.raises(ValueError, match="actions must be integers of shape"):
        ref.step([0])
    with pytest.raises(ValueError, match=r"slot must be 0\.\.1"):
        ref.game(2)
    with pytest.raises(ValueError, match="from_game takes a Game of this batch's ruleset"):
        ref.from_game(new_game("crates", 3, seed=1), 0)
    with pytest.raises(ValueError, match="ReferenceGames does not render"):
        ReferenceGames(2, render_mode="ansi")


@pytest.mark.parametrize("engine", [ReferenceGames, VectorGame])
def test_some_games_are_observed_alone_in_the_order_asked(engine):
    """``observe(games=...)`` and ``legal_mask(games=...)`` give those games' rows of the whole
    batch's (a finished game's too, and one asked twice), in the order asked; other slots or
    shapes are refused."""
    batch = engine(5, preset="crazy_eights", num_players=4, autoreset=False)
    batch.reset(seeds=[3, 4, 5, 6, 7])
    while not batch.game_over[1]:
        batch.step(batch.random_actions(np.random.default_rng(1)), active=np.arange(5) == 1)
    seats = np.array([-1, 2, 0, -1, 3])
    games = np.array([4, 1, 0, 4])
    np.testing.assert_array_equal(batch.observe(seats, games=games), batch.observe(seats)[games])
    np.testing.assert_array_equal(batch.legal_mask(games=games), batch.legal_mask()[games])
    assert not batch.legal_mask(games=[1]).any()  # finished: nothing is legal
    assert batch.observe(games=[]).shape == (0, batch.observer.size)
    with pytest.raises(ValueError, match=r"games must be a 1-D sequence of slots \(ints 0\.\.4\)"):
        batch.observe(games=[5])
    with pytest.raises(ValueError, match="games must be a 1-D sequence of slots"):
        batch.legal_mask(games=[[0, 1]])


B3, RANDOM = 3, np.ones((3, 4), dtype=bool)  # a batch of three, every seat random
# every method that reads or moves games, with good arguments: each reads slot 0 or all
READS = {
    "to_play": lambda b: b.to_play,
    "legal_mask": lambda b: b.legal_mask(),
    "legal_mask of slot 0": lambda b: b.legal_mask(games=[0]),
    "observe": lambda b: b.observe(),
    "random_actions": lambda b: b.random_actions(np.random.default_rng(0)),
    "copy_games from slot 0": lambda b: b.copy_games([0], [1]),
    "scores": lambda b: b.scores,
    "stars": lambda b: b.stars,
    "pressures_taken": lambda b: b.pressures_taken,
    "hands_played": lambda b: b.hands_played,
    "truncated": lambda b: b.truncated,
    "standings": lambda b: b.standings,
    "last_hands": lambda b: b.last_hands(),
    "winners": lambda b: b.winners(0),
    "standing": lambda b: b.standing(0),
    "hand_log": lambda b: b.hand_log(0, 0),
}
# the calls that spun for ever on a blank record of the compiled engine: tested on it in a
# process of their own (test_vector_input), here on the reference one
MOVES = {
    "step": lambda b: b.step(np.full(B3, 57)),
    "step of slot 0": lambda b: b.step(np.full(B3, 57), active=np.arange(B3) == 0),
    "play_random_seats": lambda b: b.play_random_seats(
        RANDOM, np.zeros(B3, np.int64), np.random.default_rng(0)
    ),
    "observe_hidden": lambda b: b.observe_hidden(np.zeros(B3, np.int64)),
    "game": lambda b: b.game(0),
}


@pytest.mark.parametrize("engine", [ReferenceGames, VectorGame])
@pytest.mark.parametrize("call", sorted(READS))
def test_a_slot_that_holds_no_game_is_refused_on_both_engines(engine, call):
    """Before a slot is dealt or loaded a game, whatever reads or moves it refuses with the
    slot's number (it used to read zeros, or on the compiled engine spin for ever), and no
    game moves; a slot dealt or copied a game is read as any other."""
    batch = engine(B3, preset="crates", num_players=4)
    with pytest.raises(ValueError, match="slot 0 holds no game yet: deal one first"):
        READS[call](batch)
    assert batch.game_over.all()  # a slot without a game counts as over
    batch.reset(seeds=[1], slots=[2])
    with pytest.raises(ValueError, match="slot 0 holds no game yet"):
        READS[call](batch)
    batch.from_game(new_game("crates", 4, seed=5), 0)
    batch.copy_games([0], [1])
    READS[call](batch)  # every slot holds a game now


@pytest.mark.parametrize("call", sorted(MOVES))
def test_the_reference_batch_moves_no_slot_that_holds_no_game(call):
    batch = ReferenceGames(B3, preset="crates", num_players=4)
    with pytest.raises(ValueError, match="slot 0 holds no game yet"):
        MOVES[call](batch)


def test_games_are_read_where_they_are_held_before_every_slot_is():
    """Dealt slots are played and read on their own while others hold no game: a ``games``
    list or an ``active`` mask that leaves the empty slots out."""
    for batch in (ReferenceGames(B3, preset="crates", num_players=4),
                  VectorGame(B3, preset="crates", num_players=4)):  # fmt: skip
        batch.reset(seeds=[4, 5], slots=[0, 1])
        live = np.array([True, True, False])
        mask = batch.legal_mask(games=[0, 1])
        actions = np.zeros(B3, dtype=np.int64)
        actions[:2] = [np.flatnonzero(row)[0] for row in mask]
        batch.step(actions, active=live)
        batch.play_random_seats(RANDOM, np.zeros(B3, np.int64), np.random.default_rng(1), [0])
        assert batch.game_over[0] and not batch.game_over[1]
        with pytest.raises(ValueError, match="slot 2 holds no game yet"):
            batch.step(actions)
