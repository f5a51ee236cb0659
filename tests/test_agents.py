"""Tests of the agents package: the Table, the scripted agents and the MaskablePPO policy agent.

Scripted positions are stacked deals on ``raw_env`` (dealer 0, so seat 1 acts first unless the
starter says otherwise), sometimes advanced by a few moves given by name. Seats are 0 & 2 v
1 & 3 in 4-player ``crates``. A chain of sixes (6H 6D 6S, then a card) lets one seat shed four
cards in a turn, to bring a player down to one card.
"""

from __future__ import annotations

import zipfile

import gymnasium
import numpy as np
import pytest

from agents import (
    AGENT_NAMES,
    Agent,
    GreedyAgent,
    HeuristicAgent,
    PolicyAgent,
    RandomAgent,
    SearchAgent,
    Table,
    make_agent,
)
from agents.checkpoints import TableRecord, save_checkpoint
from crates_env import NUM_ACTIONS, crates_v0, parse_card
from crates_env.env import raw_env
from crates_env.rules import PRESETS, make_ruleset
from crates_env.wrappers import CratesGymEnv

from .scripted import deal_order, tiny_maskable_ppo

# --- helpers -------------------------------------------------------------------------------------


def position(hands, starter, moves=(), stock=(), preset="crates", **options):
    """A stacked one-hand deal (dealer 0) advanced by ``moves`` (action names, in turn order)."""
    env = raw_env(preset, len(hands), deal_schedule=[len(hands[0])], **options)
    deck = deal_order(hands, dealer=0, starter=starter, stock=stock)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    for text in moves:
        env.step(env.encode_action(text))
    return env


def choose(agent, env) -> str:
    """The acting seat's choice by name, checked against the mask."""
    obs = env.observe(env.agent_selection)
    action = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action], env.decode_action(action)
    return env.decode_action(action)


def heuristic(env) -> HeuristicAgent:
    return HeuristicAgent(Table.from_env(env), seed=0)


def greedy(env) -> GreedyAgent:
    return GreedyAgent(Table.from_env(env))


# Seat 1 chains three sixes and a K down to one card (QC); seat 2 (JS) and seat 3 (QS) follow;
# seat 0, our player, then acts with the next opponent (seat 1) on one card.
NEXT_ON_ONE = ["play 6H", "play 6D", "play 6S", "announce", "play KS", "play JS", "play QS"]


def next_on_one(seat0: list[str]):
    hands = [
        seat0,
        ["6H", "6D", "6S", "KS", "QC"],
        ["JS", "4H", "5C", "KC", "10D"],
        ["QS", "AH", "JC", "10H", "5D"],
    ]
    env = position(hands, "KH", NEXT_ON_ONE)
    assert env.agent_selection == "player_0" and env.game.hand_sizes == [5, 1, 4, 4]
    return env


# --- the Table -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_env",
    [
        lambda: crates_v0.env(),
        lambda: raw_env(),
        lambda: CratesGymEnv(),
        lambda: gymnasium.make("Crates-v0"),
    ],
    ids=["env", "raw_env", "CratesGymEnv", "gym.make"],
)
def test_table_from_every_kind_of_env(make_env):
    env = make_env()
    table = Table.from_env(env)
    aec = raw_env()
    assert dict(table.layout) == aec.observation_layout()
    assert table.obs_size == aec.observation_space("player_0")["observation"].shape[0]
    assert (table.num_players, table.partnerships, table.partner_slot) == (4, True, 2)
    seven = table.card_functions[parse_card("7H")]
    assert seven.draws == ((2, 1),) and table.deck_size == 52  # the partner takes a card


def test_table_from_rules_reads_the_ruleset():
    three = Table.from_rules("crates", 3, standig_jokers=True, queen_draws_two=True)
    assert three == Table.from_rules(
        make_ruleset("crates", 3, standig_jokers=True, queen_draws_two=True)
    )
    assert not three.partnerships and three.partner_slot is None
    functions = {c: three.card_functions[parse_card(c)].draws for c in ("7H", "JH", "QH")}
    assert functions == {"7H": ((1, 1),), "JH": ((-1, 1),), "QH": ((1, 2),)}
    points = three.card_points
    assert len(points) == 53 and points[parse_card("3H")] == 3 and points[parse_card("8S")] == 50
    assert points[parse_card("JK")] == 40 and three.kind_copies[parse_card("JK")] == 2
    assert Table.from_rules("kreights", 3).card_points[parse_card("9C")] == 40
    seven = Table.from_rules("kreights", 3).card_functions[parse_card("7H")]
    assert seven.draws == ((2, 1),)  # no 3-player change [001:33]
    with pytest.raises(ValueError, match="preset name"):
        Table.from_rules(make_ruleset("crates"), 3)


def test_table_slices_and_hand_points():
    env = position([["3H", "KH"], ["QD", "4D"], ["JC", "5C"], ["AS", "2S"]], "KS")
    table = Table.from_env(env)
    obs = env.observe("player_0")["observation"]
    assert table.hand_kinds(obs) == sorted(parse_card(c) for c in ["3H", "KH"])
    assert np.allclose(table.slice(obs, "hand_sizes"), 0.2)
    assert table.scalar(obs, "clockwise") == 1.0
    assert table.hand_points(table.hand_kinds(obs)) == 3  # the three covers the king
    with pytest.raises(ValueError, match=r"no observation slice 'hands'.*hand_sizes"):
        table.slice(obs, "hands")
    with pytest.raises(ValueError, match="not a Crates environment"):
        Table.from_env(object())


# --- every scripted agent, every preset: always a legal action -----------------------------------

CONFIGS = [(preset, None, {}) for preset in PRESETS] + [
    ("crates", 2, {}),
    ("crates", 3, {"standig_jokers": True, "queen_draws_two": True}),
    ("crates", 5, {"no_kings_queens": True}),
    ("craits", 3, {"craits_face_cards": True, "craits_punitive_threes": True}),
    ("chicago1970", 3, {}),
    ("creights", 3, {}),
    ("crates", 3, {"skill_hand_world_series": True}),  # seat 1 also plays Figgy's hand
]


def _short(preset: str) -> dict:
    if make_ruleset(preset).engine == "eights":
        return {"max_hands": 2}  # these games run until a score; two hands are plenty
    return {"deal_schedule": [5, 1, 2]}


@pytest.mark.parametrize(("preset", "n", "options"), CONFIGS, ids=lambda x: str(x))
def test_scripted_agents_always_choose_a_legal_action(preset, n, options):
    env = raw_env(preset, n, **_short(preset), **options)
    env.reset(seed=1)
    table = Table.from_env(env)
    lineups = [
        [HeuristicAgent(table, seed=1), GreedyAgent(table), RandomAgent(seed=2)],
        [HeuristicAgent(table, seed=3)],
    ]
    decisions = 0
    for game, lineup in enumerate(lineups * 2):
        env.reset(seed=game)
        seats = [lineup[s % len(lineup)] for s in range(env.rules.num_players)]
        for agent in seats:
            agent.reset()
        while not env.game.game_over:
            name = env.agent_selection
            obs = env.observe(name)
            agent = seats[env.agent_seat[name]]
            action = agent.act(obs["observation"], obs["action_mask"])
            assert isinstance(action, int) and obs["action_mask"][action], (
                f"{type(agent).__name__} chose {action} in {env.game.action_names()}"
            )
            env.step(action)
            decisions += 1
    assert decisions > 20


def test_agents_follow_the_protocol_and_refuse_an_empty_mask():
    table = Table.from_rules()
    obs = np.zeros(table.obs_size, dtype=np.float32)
    for agent in (RandomAgent(0), GreedyAgent(table), HeuristicAgent(table, 0)):
        assert isinstance(agent, Agent)
        agent.reset()
        with pytest.raises(ValueError, match="not the one to act"):
            agent.act(obs, np.zeros(NUM_ACTIONS, dtype=np.int8))


def test_random_agent_is_seeded_and_uniform_over_the_mask():
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[3, 17, 57]] = 1
    obs = np.zeros(10, dtype=np.float32)
    picks = [RandomAgent(seed=5).act(obs, mask) for _ in range(3)]
    assert len(set(picks)) == 1  # same seed, same first pick
    agent = RandomAgent(seed=5)
    counts = np.bincount([agent.act(obs, mask) for _ in range(3000)], minlength=NUM_ACTIONS)
    assert set(np.flatnonzero(counts)) == {3, 17, 57} and counts.min(initial=3000) >= 0
    assert all(900 < counts[a] < 1100 for a in (3, 17, 57))


# --- GreedyAgent ---------------------------------------------------------------------------------


def test_greedy_sheds_its_costliest_legal_card():
    # On KH seat 1 may play AH, 4H, 10H or KD; 5S (30) is not legal, so 10H (25) is the costliest.
    env = position(
        [
            ["QC", "JC", "3C", "7C", "9D"],
            ["AH", "4H", "10H", "KD", "5S"],
            ["JD", "QD", "4D", "5D", "6D"],
            ["2S", "3S", "4S", "6S", "7S"],
        ],
        "KH",
    )
    assert choose(greedy(env), env) == "play 10H"


def test_greedy_announces_and_names_its_longest_suit():
    env = position([["QC", "JC"], ["4H", "KS"], ["JD", "QD"], ["2S", "3S"]], "3H")
    assert choose(greedy(env), env) == "announce"
    env = position(
        [
            ["QC", "JC", "4C", "5C", "10C"],
            ["8H", "2S", "5S", "KS", "AD"],
            ["JD", "QD", "4D", "5D", "6D"],
            ["2H", "3S", "4S", "6S", "7S"],
        ],
        "3H",
    )
    assert choose(greedy(env), env) == "play 8H"  # 50 points
    env.step(env.encode_action("play 8H"))
    assert choose(greedy(env), env) == "suit S"  # 2S 5S KS against AD


# --- HeuristicAgent: one scripted position per rule ----------------------------------------------


def test_rule_1_always_announces_one_card():
    env = position([["QC", "JC"], ["4H", "KS"], ["JD", "QD"], ["2S", "3S"]], "3H")
    assert choose(heuristic(env), env) == "announce"


def test_rule_2_goes_out_with_a_six_and_its_follow_up():
    # 6H then the wild 9C: out this turn. Greedy plays the 9C (30, as the 6) and keeps the 6.
    env = position([["QC", "JC"], ["6H", "9C"], ["JD", "QD"], ["2S", "3S"]], "KH", ["announce"])
    assert choose(heuristic(env), env) == "play 6H"
    assert choose(greedy(env), env) == "play 9C"
    env.step(env.encode_action("play 6H"))
    assert choose(heuristic(env), env) == "play 9C"
    env.step(env.encode_action("play 9C"))
    assert env.game.results[-1].went_out == 1


def test_rule_3_in_a_count_passes_a_bigger_count_to_the_opponent():
    hands = [["QC", "JC", "4C"], ["2H", "KS", "QS"], ["AC", "2C", "KD"], ["5S", "4S", "6S"]]
    env = position(hands, "KH", ["play 2H"])
    assert choose(heuristic(env), env) == "play 2C"  # count 4 for seat 3; the ace stays
    # With Jokers, a Joker bounces the count back to the previous player (seat 1, an opponent).
    hands[2] = ["AC", "JK", "KD"]
    env = position(hands, "KH", ["play 2H"], standig_jokers=True)
    assert choose(heuristic(env), env) == "play JK"


def test_rule_4_starts_a_count_on_an_opponent_with_one_card():
    # Seat 1 holds only QC: QD would let it go out; a count makes it draw unless it has A/2.
    env = next_on_one(["2S", "QD", "KD", "JD", "4D"])
    assert choose(heuristic(env), env) == "play 2S"


def test_rule_4_otherwise_keeps_its_last_two_for_a_count():
    env = position(
        [
            ["QC", "JC", "4C", "5C", "10C"],
            ["2H", "KH", "JD", "4D", "3S"],
            ["JH", "QD", "5D", "6D", "7D"],
            ["2S", "4S", "6S", "7S", "AD"],
        ],
        "QH",
    )
    assert choose(heuristic(env), env) == "play KH"
    assert choose(greedy(env), env) == "play 2H"


def test_rule_5_skips_an_opponent_with_one_card():
    env = next_on_one(["4S", "QD", "KD", "JD", "3D"])
    assert choose(heuristic(env), env) == "play 4S"


def test_rule_5_gives_no_card_to_a_partner_about_to_go_out():
    # Seat 2 (our partner) chains down to one card; our 7S would hit it (next but one).
    hands = [
        ["7S", "JC", "KD", "4D", "QD"],
        ["JH", "4C", "5C", "10C", "AD"],
        ["6H", "6D", "6S", "KS", "QC"],
        ["JS", "4S", "2C", "10H", "5D"],
    ]
    moves = ["play JH", "play 6H", "play 6D", "play 6S", "announce", "play KS", "play JS"]
    env = position(hands, "KH", moves)
    assert env.agent_selection == "player_0" and env.game.hand_sizes[2] == 1
    assert choose(heuristic(env), env) == "play JC"
    assert choose(greedy(env), env) == "play 7S"


def test_rule_5_a_seven_hits_the_next_opponent_in_three_player_crates():
    env = position([["QC", "JC", "4C"], ["7H", "JH", "KD"], ["2S", "4S", "6S"]], "KH")
    assert choose(heuristic(env), env) == "play 7H"


def test_rule_6_keeps_a_wild_while_a_natural_card_fits():
    env = position(
        [
            ["QC", "JC", "4C", "5C", "10C"],
            ["8C", "JH", "QD", "4D", "3S"],
            ["JD", "2D", "5D", "6D", "7D"],
            ["2S", "4S", "6S", "7S", "AD"],
        ],
        "KH",
    )
    assert choose(heuristic(env), env) == "play JH"
    assert choose(greedy(env), env) == "play 8C"


def test_rule_6_keeps_the_wild_as_its_last_card():
    env = position([["QC", "JC"], ["8C", "JH"], ["JD", "2D"], ["2S", "4S"]], "KH", ["announce"])
    assert choose(heuristic(env), env) == "play JH"


def test_rule_6_dumps_the_eight_when_an_opponent_is_about_to_go_out():
    env = next_on_one(["8C", "QD", "KD", "JD", "4D"])
    assert choose(heuristic(env), env) == "play 8C"


def test_rule_7_keeps_a_three_that_covers_a_costly_card():
    # 3H would shed 3 points but uncover the 10C: the ace goes (another 2 answers counts).
    env = position(
        [
            ["QC", "JC", "4C", "5C"],
            ["3H", "AH", "2C", "10C"],
            ["JD", "QD", "5D", "6D"],
            ["2S", "4S", "6S", "7S"],
        ],
        "KH",
    )
    assert choose(heuristic(env), env) == "play AH"
    assert choose(greedy(env), env) == "play 3H"


def test_rule_8_never_ends_a_turn_cooper_exposed():
    others = [["QH", "JH", "4H", "5H"], ["JD", "QD", "5D", "2D"], ["2S", "4S", "7S", "AS"]]
    env = position([others[0], ["6C", "KH", "4D", "QS"], *others[1:]], "KC")
    assert choose(heuristic(env), env) == "play KH"  # 6C: nothing follows, a Cooper
    assert choose(greedy(env), env) == "play 6C"
    env = position([others[0], ["6C", "4C", "KH", "QS"], *others[1:]], "KC")
    assert choose(heuristic(env), env) == "play 6C"  # then 4C: two cards in one turn


def test_rule_9_names_the_suit_the_opponents_are_short_in():
    # Four spades are gone (KS starter, QS, JS, AS); we hold one heart, one spade, one diamond.
    hands = [
        ["8C", "KH", "7S", "4D"],
        ["QS", "JC", "5C", "10C"],
        ["JS", "QD", "5D", "6D"],
        ["AS", "4H", "6H", "7H"],
    ]
    env = position(hands, "KS", ["play QS", "play JS", "play AS", "play 8C"])
    assert choose(heuristic(env), env) == "suit S"
    assert choose(greedy(env), env) == "suit D"  # a tie in length: the first suit


def test_heuristic_names_a_wild_starters_suit_blind():
    env = position([["QC", "JC"], ["4H", "KS"], ["JD", "QD"], ["2S", "3S"]], "8H")
    obs = env.observe(env.agent_selection)
    assert not Table.from_env(env).slice(obs["observation"], "hand").any()
    assert choose(heuristic(env), env).startswith("suit ")


def test_heuristic_in_the_crazy_eights_family_sheds_naturals_and_keeps_its_eights():
    table = Table.from_rules("crazy_eights")
    assert table.engine == "eights" and table.wild_ranks == (7,)  # only the 8 is wild
    assert Table.from_rules("zimbabwe").card_points[parse_card("AS")] == 100
    obs = np.zeros(table.obs_size, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[parse_card(c) for c in ("8C", "KH", "5H")]] = 1
    assert HeuristicAgent(table).act(obs, mask) == parse_card("KH")  # 10 points; the 8 stays
    assert GreedyAgent(table).act(obs, mask) == parse_card("8C")  # 50 points


# --- make_agent ----------------------------------------------------------------------------------


def test_make_agent_by_name_and_its_errors(tmp_path):
    table = Table.from_rules()
    kinds = {
        "random": RandomAgent,
        "greedy": GreedyAgent,
        "heuristic": HeuristicAgent,
        "search": SearchAgent,
        "shipped": PolicyAgent,
    }
    assert set(AGENT_NAMES) == set(kinds)
    for name, cls in kinds.items():
        assert type(make_agent(name, table, seed=1)) is cls
    with pytest.raises(ValueError, match="random, greedy, heuristic, search, shipped"):
        make_agent("smart", table)
    with pytest.raises(ValueError, match=r"missing\.zip': no such file; check the path"):
        make_agent(str(tmp_path / "missing.zip"), table)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"junk\.zip"):
        make_agent(str(junk), table)


def test_search_takes_its_settings_after_a_colon():
    table = Table.from_rules()
    agent = make_agent("search:samples=3,stock_max=12", table, seed=1)
    assert (agent.samples, agent.stock_max) == (3, 12)
    assert isinstance(agent.base_policy, HeuristicAgent)
    for spec, message in [
        ("search:depth=2", "name among samples, stock_max, base"),
        ("search:samples", "name among samples, stock_max, base"),
        ("search:samples=many", "samples must be an integer"),
        ("search:samples=0", "samples must be an int >= 1"),
        ("search:base=greedy", "base must be 'heuristic', 'shipped' or a checkpoint"),
        ("heuristic:samples=2", "valid names are"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(spec, table)


# --- PolicyAgent ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    model, _ = tiny_maskable_ppo(64)
    path = tmp_path_factory.mktemp("policy") / "tiny.zip"
    save_checkpoint(path, model.policy, [TableRecord("crates", 4)])
    return path


def test_policy_agent_plays_legal_actions(checkpoint):
    env = raw_env(deal_schedule=[2, 1])
    table = Table.from_env(env)
    agents = [
        PolicyAgent(checkpoint, table=table),
        PolicyAgent(checkpoint, deterministic=False),
        make_agent(str(checkpoint), table),
    ]
    observations, masks = [], []
    for game in range(3):
        env.reset(seed=game)
        while not env.game.game_over:
            obs = env.observe(env.agent_selection)
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            action = agents[env.agent_seat[env.agent_selection] % 3].act(
                obs["observation"], obs["action_mask"]
            )
            assert obs["action_mask"][action]
            env.step(action)
    batch = agents[0].act_batch(np.stack(observations), np.stack(masks))
    assert batch.shape == (len(masks),)
    assert all(mask[a] for a, mask in zip(batch, masks, strict=True))
    with pytest.raises(ValueError, match="act_batch needs"):
        agents[0].act_batch(np.stack(observations), np.stack(masks)[:, :5])


def test_policy_agent_matches_sb3_predict_and_announces_when_allowed(checkpoint):
    """The fast forward pass picks what SB3's own predict picks; the call is automatic."""
    from crates_env.actions import ANNOUNCE

    env = raw_env(deal_schedule=[2, 1])
    agent = PolicyAgent(checkpoint, auto_announce=False)
    announcer = PolicyAgent(checkpoint)
    offered = 0
    for game in range(4):
        env.reset(seed=game)
        while not env.game.game_over:
            obs = env.observe(env.agent_selection)
            o, m = obs["observation"], obs["action_mask"].astype(bool)
            expected, _ = agent.policy.predict(o, action_masks=m, deterministic=True)
            chosen = agent.act(o, m)
            if chosen != int(expected):  # only a float tie may part them (SB3 normalises first)
                logits = agent._logits(o[None, :], m[None, :])[0]
                assert logits[chosen] == pytest.approx(logits[int(expected)], abs=1e-5)
            if m[ANNOUNCE]:
                offered += 1
                assert announcer.act(o, m) == ANNOUNCE
            env.step(agent.act(o, m))
    assert offered > 0


def test_agents_of_one_checkpoint_share_its_model_until_the_file_changes(checkpoint, tmp_path):
    import os
    import shutil

    copy = tmp_path / "copy.zip"
    shutil.copy(checkpoint, copy)
    first, second = PolicyAgent(copy), PolicyAgent(copy)
    assert first.policy is second.policy  # an evaluation makes an agent a seat: one load
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a new version
    assert PolicyAgent(copy).policy is not first.policy


def test_policy_agent_errors_name_the_path(checkpoint, tmp_path):
    missing = tmp_path / "nowhere.zip"
    with pytest.raises(ValueError, match=r"nowhere\.zip: no such checkpoint"):
        PolicyAgent(missing)
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(checkpoint.read_bytes()[:200])
    with pytest.raises(ValueError, match=r"corrupt\.zip: not a checkpoint \(not a zip archive"):
        PolicyAgent(corrupt)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ValueError, match=r"foreign\.zip: not a checkpoint \(no crates_checkpoint"):
        PolicyAgent(foreign)
    with pytest.raises(ValueError, match=r"tiny\.zip: the network observes \d+ values.*3 players"):
        PolicyAgent(checkpoint, table=Table.from_rules("crates", 3))
