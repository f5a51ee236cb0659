"""House rules as data (docs/variants.md): two toy rule systems declared from outside the
package, one in a YAML file and one in Python, played by both engines identically, by the
agents and the command line; declarations the engines cannot play are refused by name."""

from __future__ import annotations

import json

import pytest

from agents import HeuristicAgent, SearchAgent, Table
from crates_env import RuleSystem, make_ruleset, preset_names, register_preset, register_rules_file
from crates_env import rules as rules_module
from crates_env.cards import EIGHT, QUEEN, make_kind
from crates_env.env import raw_env
from crates_env.presets import CardFunction
from crates_env.table_observation import TABLE_SLICES, table_features
from train.cli import main
from train.config import load_config

from .harness.vector_equivalence import play_both

# A Crates house rule: short hands, a Queen makes the next player draw two, a King skips like a
# 4, a 9 left in hand costs 40, pressures capped, no partnerships, low card deals.
PUB_CRATES = """\
name: pub_crates
base: crates
about: Crates as the Red Lion plays it
players: [3, 5]
partnerships_at: []
rules:
  schedule: [5, 4, 3]
  points: {"9": 40, Q: 15}
  pressure: cap20
  dealer_rule: low_card
cards:
  Q: {draws: [[1, 2]]}
  K: {next_player: 2, skips: true}
"""
# A Crazy Eights house rule from scratch: 6 cards, a 2 makes the next player take two (a 2
# answers it), a J skips, a Q reverses, the 8 is wild; one draw a turn; the first to 60 wins.
TOY_ROLES = ("", "offensive", "", "", "", "", "", "declare", "", "", "skip", "reverse", "", "")
TOY_EIGHTS = RuleSystem(
    name="toy_eights",
    about="Crazy Eights with a kick",
    engine="eights",
    players=(2, 5),
    rules={
        "schedule": (6,),
        "game_end": "target",
        "target_score": 60,
        "point_sign": 1,
        "hand_scoring": "winner_collects",
        "empty_stock": "blocked",
        "draw_rule": "one",
        "pressure": "none",
        "three_scoring": "none",
        "points": (1, 20, 3, 4, 5, 6, 7, 50, 9, 10, 10, 10, 10, 0),
        "card_roles": TOY_ROLES,
        "demands": (0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        "wild_kinds": tuple(make_kind(EIGHT, suit) for suit in range(4)),
    },
)


@pytest.fixture
def house_rules(tmp_path, monkeypatch):
    """The two toy rule systems registered for one test (the registry and the environment
    variable the workers read put back after it)."""
    monkeypatch.setenv(rules_module.RULES_FILES_VARIABLE, "")
    saved = dict(rules_module._SYSTEMS)
    path = tmp_path / "pub.yaml"
    path.write_text(PUB_CRATES)
    assert register_rules_file(path) == ("pub_crates",)
    assert register_preset(TOY_EIGHTS) is TOY_EIGHTS
    yield path
    rules_module._SYSTEMS.clear()
    rules_module._SYSTEMS.update(saved)


def test_the_declarations_resolve_to_the_rules_they_state(house_rules):
    pub = make_ruleset("pub_crates", 4)
    assert pub.schedule == (5, 4, 3) and not pub.partnerships and pub.pressure == "cap20"
    assert pub.dealer_rule == "low_card" and pub.points[8] == 40 and pub.points[QUEEN] == 15
    assert pub.card_functions[make_kind(QUEEN, 2)] == CardFunction(draws=((1, 2),))
    assert pub.card_functions[make_kind(12, 0)] == CardFunction(next_player=2, skips=True)
    assert pub.card_functions[make_kind(4, 1)].draws == ((1, 1), (2, 1), (3, 1))  # the 5 stays
    toy = make_ruleset("toy_eights", 3)
    assert toy.engine == "eights" and toy.target_score == 60 and toy.card_roles[10] == "skip"
    assert {"pub_crates", "toy_eights"} <= set(preset_names())


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("pub_crates", 3, {}),
        ("pub_crates", 5, {"reward_mode": "relative", "reward_timing": "event"}),
        ("pub_crates", 4, {"standig_jokers": True, "queen_draws_two": True}),
        ("toy_eights", 2, {}),
        ("toy_eights", 4, {"reward_mode": "win"}),
    ],
)
def test_both_engines_play_a_house_rule_identically(house_rules, preset, players, options):
    played = play_both(preset, players, games=4, seed=700 + players, **options)
    assert played.games == 4
    assert played.decisions > 4 * 20


def test_a_house_rule_has_a_table_observation_without_a_rule_system_entry(house_rules):
    env = raw_env(preset="toy_eights", num_players=3, observation="table")
    env.reset(seed=1)
    shipped = raw_env(preset="crazy_eights", num_players=3, observation="table")
    shipped.reset(seed=1)
    agent = env.agents[0]
    assert env.observation_space(agent).shape == shipped.observation_space(agent).shape
    features = table_features(env.rules)
    assert not features[: TABLE_SLICES[0][1]].any()  # table_preset: none of the shipped ones
    assert features.any()


@pytest.mark.parametrize("preset", ["pub_crates", "toy_eights"])
def test_the_agents_play_a_house_rule(house_rules, preset):
    env = raw_env(preset=preset, num_players=3, max_hands=2)
    env.reset(seed=3)
    table = Table.from_env(env)
    seats = [HeuristicAgent(table, seed=1), SearchAgent(table, samples=2, seed=2)]
    seats.append(HeuristicAgent(table, seed=4))
    decisions = 0
    while not env.game.game_over and decisions < 60:
        name = env.agent_selection
        obs = env.observe(name)
        action = seats[env.agent_seat[name]].act(obs["observation"], obs["action_mask"], env)
        assert obs["action_mask"][action]
        env.step(action)
        decisions += 1
    assert decisions > 10


def test_crates_eval_plays_a_rules_file(house_rules, tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["eval", "--rules-file", str(house_rules), "--preset", "pub_crates", "--players", "3"]
    argv += ["--agents", "heuristic", "random", "--deals", "4", "--workers", "2"]  # spawned
    assert main([*argv, "--out", str(out), "--no-tensorboard", "--quiet"]) == 0
    assert (out / "report.json").exists()


def test_a_training_config_names_its_rules_file(house_rules, tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text("name: short_crates\nbase: crates\nrules: {schedule: [3, 2]}\n")
    config = load_config(None, [f"rules_file={path}", "preset=short_crates", "num_players=3"])
    assert config.ruleset().schedule == (3, 2)
    with pytest.raises(ValueError, match="unknown preset 'other_crates'"):
        load_config(None, [f"rules_file={path}", "preset=other_crates"])


def test_crates_train_keeps_its_rules_file_in_the_runs_config(house_rules, tmp_path):
    # the flag registered the file but the run's config.json did not name it: a resumed or
    # rerun run from that config did not know the preset
    argv = ["train", "--rules-file", str(house_rules), "--set", "preset=pub_crates"]
    argv += ["--set", "num_players=3", "--set", f"runs_dir={tmp_path}", "--set", "total_steps=64"]
    argv += ["--set", "num_envs=2", "--set", "ppo.n_steps=32", "--set", "ppo.batch_size=32"]
    argv += ["--set", "ppo.n_epochs=1", "--set", "warm_start.teacher=", "--set", "eval.every=1000"]
    argv += ["--set", "eval.final_deals=1", "--set", "progress_bar=false"]
    assert main(argv) == 0
    saved = json.loads((tmp_path / "default" / "config.json").read_text())
    assert saved["rules_file"] == str(house_rules.resolve())
    assert saved["preset"] == "pub_crates"


def test_crates_train_takes_one_rules_file(house_rules, capsys):
    with pytest.raises(SystemExit):
        main(["train", "--rules-file", str(house_rules), "--rules-file", str(house_rules)])
    assert "crates train takes one --rules-file (the config's rules_file), not 2" in (
        capsys.readouterr().err
    )


def test_crates_refuses_a_bad_rules_file_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(rules_module.RULES_FILES_VARIABLE, "")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nbase: crates\nrules: {pressure: triple}\n")
    with pytest.raises(SystemExit) as stop:
        main(["eval", "--rules-file", str(bad), "--preset", "bad"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.count("\n") == 0, err
    assert "rules.pressure: 'triple' is not a mechanic the engines have" in err
    assert "'cap20'" in err


# --- refusals -------------------------------------------------------------------------------------

BASE = {"name": "house", "base": "crates"}


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ({**BASE, "colour": "red"}, "unknown field(s) colour; valid fields: name, about, base"),
        ({**BASE, "base": "bridge"}, "base: 'bridge' is not a declared rule system; valid: crates"),
        ({"name": "house"}, "engine, players: needed without a base"),
        ({**BASE, "name": "Big House"}, "name: a rule system's name is a lower-case identifier"),
        ({**BASE, "name": "zimbabwe"}, "name: preset 'zimbabwe' is already declared"),
        ({**BASE, "engine": "eights"}, "engine: 'eights' contradicts base 'crates'"),
        ({**BASE, "players": [1, 5]}, "players: [fewest, most], from 2 to 12 players"),
        ({**BASE, "partnerships_at": [3]}, "partnerships_at: the engines seat partnerships at 4"),
        ({**BASE, "rules": {"colour": 1}}, "rules: 'colour' is not a rule the engines read"),
        ({**BASE, "rules": {"pressure": "triple"}}, "valid: 'double', 'cap20', 'flat5', 'none'"),
        ({**BASE, "rules": {"pressure": "none"}}, "rules.pressure: the crates engine plays"),
        ({**BASE, "rules": {"draw_rule": "until_play"}}, "rules.draw_rule: the crates engine"),
        ({**BASE, "rules": {"stars": "yes"}}, "rules.stars: true or false, not 'yes'"),
        ({**BASE, "rules": {"schedule": [5, 0]}}, "rules.schedule: a non-empty list of positive"),
        ({**BASE, "rules": {"points": {"Z": 3}}}, "rules.points: 'Z' is not a rank; valid: A, 2"),
        ({**BASE, "rules": {"game_end": "target"}}, "the crates engine ends a game by schedule"),
        ({**BASE, "rules": {"in_air": True}}, "rules.in_air: a rule of the eights engine"),
        (
            {**BASE, "rules": {"schedule": [20]}},
            "house at 3 players: a deal of 20 cards to 3 players",
        ),
        (
            {**BASE, "options": ["crazy_eights_eight_must_change_suit"]},
            "options: 'crazy_eights_eight_must_change_suit' is a rule of the eights engine",
        ),
        ({**BASE, "options": ["double_up"]}, "options: 'double_up' is not an option the engines"),
        ({**BASE, "cards": {"Q": {"colour": 1}}}, "cards.Q: unknown field(s) colour; valid: draws"),
        ({**BASE, "cards": {"Q": {"next_player": 3}}}, "cards.Q.next_player: 1 (the next player)"),
        ({**BASE, "cards": {"ZZ": {"again": True}}}, "bad card code 'ZZ'"),
        ({**BASE, "search": {"depth": 3}}, "search: unknown setting(s) depth; valid: samples"),
        (
            {"name": "house", "base": "zimbabwe", "rules": {"demands": {"2": 0}}},
            "rules.demands.2: an offensive card demands cards (> 0) and no other card does",
        ),
        (
            {"name": "house", "base": "crazy_eights", "rules": {"hand_scoring": "own_cards"}},
            "contradict game_end 'target', played with hand_scoring 'winner_collects'",
        ),
        (
            {"name": "house", "base": "crazy_eights", "rules": {"target_score": 0}},
            "rules.target_score: a game to a target needs one above 0",
        ),
        (
            {"name": "house", "base": "zimbabwe", "cards": {"Q": {"again": True}}},
            "cards: card functions are the crates engine's",
        ),
    ],
)
def test_a_declaration_the_engines_cannot_play_is_refused_by_field(declaration, message):
    before = preset_names()
    with pytest.raises(ValueError) as refused:
        register_preset(declaration)
    assert message in str(refused.value)
    assert preset_names() == before  # nothing registered


def test_registering_the_same_declaration_again_does_nothing(house_rules):
    assert register_preset(TOY_EIGHTS) is TOY_EIGHTS
    register_rules_file(house_rules)
    with pytest.raises(ValueError, match="preset 'toy_eights' is already declared"):
        register_preset({"name": "toy_eights", "base": "crazy_eights"})
