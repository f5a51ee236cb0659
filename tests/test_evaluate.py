"""The duplicate-deal evaluation harness, the ``crates`` command line and ``crates play``."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from crates_env.table_observation import COVERED_TABLES
from train.cli import main
from train.cli.commands import parse_rules
from train.cli.play import play_in_terminal
from train.evaluation import (
    EvalConfig,
    GameRecord,
    SeatRecord,
    format_report,
    lineups,
    run,
    summarize,
    validate,
    write_outputs,
)

SHORT = {"deal_schedule": [2, 1]}


def config(**kw) -> EvalConfig:
    base = EvalConfig(agents=("greedy", "random"), deals=3, workers=1, options=SHORT)
    return replace(base, **kw)


def test_lineups_rotate_every_agent_through_every_seat():
    assert lineups(2, 4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert lineups(3, 3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    four = lineups(3, 4)
    assert len(four) == 3  # the fourth rotation repeats the first
    for seat in range(4):
        assert {lu[seat] for lu in four} == {0, 1, 2}


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"agents": ("greedy", "nope")}, "nope"),
        ({"agents": ("greedy",)}, "at least two agents"),
        ({"preset": "nope"}, "unknown preset"),
        ({"num_players": 9}, "2 to 5 players"),
        ({"agents": ("random",) * 5}, "cannot all sit"),
        ({"agents": ("greedy", "/no/such/model.zip")}, "/no/such/model.zip"),
        ({"deals": 0}, "deals"),
        ({"options": {"no_such_rule": True}}, "no_such_rule"),
    ],
)
def test_bad_input_is_one_clear_error_before_any_game(kw, message):
    with pytest.raises(ValueError, match=message):
        validate(config(**kw))


def test_same_results_whatever_the_number_of_workers():
    one = run(config(deals=4), progress=False)
    two = run(config(deals=4, workers=2), progress=False)
    assert one == two
    assert [(r.deal, r.lineup) for r in one] == [(d, i) for d in range(4) for i in range(2)]


def test_duplicate_lineups_hold_the_same_cards():
    """Each deal is replayed with seats swapped: the first hand's cards are the same."""
    from crates_env.env import raw_env
    from train.evaluation.games import seed_of

    hands = []
    for _lineup in range(2):
        env = raw_env(**config().env_kwargs())
        env.reset(seed=seed_of(0, 1))
        hands.append([env.game.hand(s) for s in range(4)])
    assert hands[0] == hands[1]


def test_summary_statistics_and_outputs(tmp_path):
    cfg = config(deals=6)
    records = run(cfg, progress=False)
    report = summarize(cfg, records)
    greedy, rnd = report.agents
    assert (greedy.name, rnd.name) == ("greedy", "random")
    assert greedy.games == rnd.games == 6 * 2  # deals x lineups
    assert 0 <= greedy.win_rate <= 1
    assert greedy.win_rate + rnd.win_rate == pytest.approx(1.0)
    assert set(greedy.points_by_deal_size) == {1, 2}
    (pair,) = report.pairs
    assert pair.mean_difference == pytest.approx(greedy.mean_points - rnd.mean_points)
    assert 0 <= pair.p_value <= 1
    paths = write_outputs(report, tmp_path, tensorboard=False)
    data = json.loads((tmp_path / "report.json").read_text())
    assert [a["name"] for a in data["agents"]] == ["greedy", "random"]
    assert (tmp_path / "points.png").stat().st_size > 1000
    assert (tmp_path / "agents.csv").read_text().startswith("name,games,mean_points")
    assert len(paths) == 4
    # the sign test and the share of deals with fewer points, from the per-deal points
    diffs = [a - b for a, b in report.deal_points if a != b]
    fewer = sum(d < 0 for d in diffs)
    assert pair.better_share == pytest.approx(fewer / len(diffs))
    assert pair.sign_p == pytest.approx(stats.binomtest(fewer, len(diffs)).pvalue)
    rows = (tmp_path / "deals.csv").read_text().splitlines()
    header = "deal,points greedy,points random,win share greedy,win share random"
    assert rows[0] == header + ",standing greedy,standing random"
    assert [int(r.split(",")[0]) for r in rows[1:]] == list(range(6))
    for row in rows[1:]:  # in the Crates family a side stands as well as its points are few
        points, standings = row.split(",")[1:3], row.split(",")[5:7]
        assert [-float(p) for p in points] == [float(s) for s in standings]


def test_runs_of_other_seeds_pool_into_one_comparison(tmp_path):
    """Per-deal results saved by two runs compare as one run of all their deals would."""
    from train.evaluation import pooled_pairs

    reports = []
    for seed in (1, 2):
        cfg = config(deals=5, seed=seed)
        reports.append(summarize(cfg, run(cfg, progress=False)))
        write_outputs(reports[-1], tmp_path / str(seed), tensorboard=False)
    (pooled,) = pooled_pairs([tmp_path / "1" / "deals.csv", tmp_path / "2" / "deals.csv"])
    points = np.concatenate([r.deal_points for r in reports])
    diffs = points[:, 0] - points[:, 1]
    assert pooled.deals == 10
    assert pooled.mean_difference == pytest.approx(diffs.mean())
    nonzero = diffs[diffs != 0]
    assert pooled.sign_p == pytest.approx(
        stats.binomtest(int((nonzero < 0).sum()), len(nonzero)).pvalue
    )
    assert pooled.wilcoxon_p == pytest.approx(stats.wilcoxon(nonzero).pvalue)
    swapped = config(agents=("random", "greedy"), deals=1)
    write_outputs(summarize(swapped, run(swapped, progress=False)), tmp_path / "3", False)
    with pytest.raises(ValueError, match="pool runs of one match"):
        pooled_pairs([tmp_path / "1" / "deals.csv", tmp_path / "3" / "deals.csv"])


def test_report_names_are_short():
    from train.evaluation.report import _short

    assert _short("runs/default/best.zip") == "default/best.zip"
    assert _short("search:samples=8,base=checkpoints/crates_4p.zip") == "search(8,≤10,crates_4p)"
    assert _short("search:base=shipped") == "search(16,≤10,shipped)"
    assert _short("search") == "search"
    assert _short("search:z=1.5,stock_max=16") == "search(16,≤16,heuristic,z1.5)"
    assert _short("search:z=0") == "search(16,≤10,heuristic,z0)"
    assert _short("search:z=1") == "search(16,≤10,heuristic)"
    assert _short("search:z=1", preset="zimbabwe") == "search(16,all,heuristic,d7)"
    assert _short("search:samples=8", preset="kreights") == "search(8,≤10,heuristic,z2,d7)"


def test_parse_rules_reads_yaml_values():
    assert parse_rules(["standig_jokers=true", "deal_schedule=[2, 1]"]) == {
        "standig_jokers": True,
        "deal_schedule": [2, 1],
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_rules(["standig_jokers"])


def test_cli_eval_prints_a_table_and_writes_files(tmp_path, capsys):
    argv = ["eval", "--agents", "greedy", "random", "--deals", "2", "--workers", "1"]
    argv += ["--rule", "deal_schedule=[2,1]", "--out", str(tmp_path), "--quiet", "--no-tensorboard"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "random" in out and "points/game" in out
    assert (tmp_path / "report.json").exists()


def test_cli_eval_bad_agent_is_one_line_and_exit_code_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--agents", "greedy", "nope", "--deals", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("crates eval: error:") and "nope" in err[0]


def test_play_in_terminal_lists_moves_and_asks_again_on_bad_input():
    answers = iter(["banana", "0"] + ["1"] * 10_000)
    asked, shown = [], []

    def read(prompt):
        asked.append(prompt)
        return next(answers)

    scores = play_in_terminal(
        seat=0,
        opponents=["greedy"],
        options={"deal_schedule": [2]},
        seed=3,
        read=read,
        write=shown.append,
    )
    text = "\n".join(shown)
    assert "'banana' is not one of the moves listed" in text
    assert "'0' is not one of the moves listed" in text
    assert "  1. " in text and "your hand:" in text
    assert re.search(r"hand over \(\w+\): hand 1 to p\d&p\d by \d+ points \(p0&p2 \+", text)
    assert re.search(r"game over: p\d&p\d win by [\d,]+ points \(p0&p2 -?[\d,]+, p1&p3", text)
    assert len(scores) == 2  # partnerships
    assert len(asked) >= 3


def test_play_rejects_a_bad_seat_or_opponent_list():
    with pytest.raises(ValueError, match="--seat"):
        play_in_terminal(seat=7, opponents=["greedy"])
    with pytest.raises(ValueError, match="one opponent"):
        play_in_terminal(seat=0, opponents=["greedy", "random"])


def test_eval_defaults_to_the_shipped_agent_only_on_the_tables_it_has_a_network_for():
    from train.cli import commands as cli

    baselines = ["heuristic", "greedy", "random"]
    for preset, n in COVERED_TABLES:
        assert cli.default_agents(preset, n, {}) == ["shipped", "heuristic"]
    assert cli.default_agents("craits", 7, {}) == baselines
    assert cli.default_agents("crazy_eights", 7, {}) == baselines
    assert cli.default_agents("crates", 4, {"standig_jokers": True}) == baselines


@pytest.mark.parametrize(("preset", "options"), [("crazy_eights", {}), ("zimbabwe", {})])
def test_evaluation_goes_by_each_presets_own_standing(preset, options):
    """crazy_eights: the highest score wins; zimbabwe: the last player left. A game's best
    standing is exactly its winners, and the table says which way scores go."""
    cfg = config(preset=preset, num_players=3, deals=4, options={"max_hands": 40, **options})
    records = run(cfg, progress=False)
    for r in records:
        best = max(r.standing)
        won = {r.team_of_seat[s] for s, seat in enumerate(r.seats) if seat.share_of_win > 0}
        assert won == {t for t, v in enumerate(r.standing) if v == best}
    text = format_report(summarize(cfg, records))
    wins = "the highest score wins" if preset == "crazy_eights" else "the last player left wins"
    assert wins in text


def test_ratings_follow_the_standing_not_the_lowest_score():
    """Two agents in crazy_eights games that the first always wins with the higher score: the
    first is rated higher (ranking by the lowest score rated it lower)."""
    seat = {"points": 0, "pressure_points": 0, "hand_points": {}, "pressures": 0}
    seat |= {"counts_drawn": 0, "stars": 0}
    records = [
        GameRecord(
            deal=d,
            lineup=0,
            seats=[SeatRecord(agent=a, share_of_win=1.0 - a, **seat) for a in (0, 1)],
            team_of_seat=[0, 1],
            final_scores=[150, 20],
            standing=[150.0, 20.0],
        )
        for d in range(20)
    ]
    summaries = summarize(config(preset="crazy_eights", num_players=2, options={}), records)
    first, second = summaries.agents
    assert first.rating_mu > second.rating_mu


# The records of the harness that played one game at a time on the reference engine
# (train.evaluation.games.play_game at commit 23585a6), digested: whichever engine plays them now,
# a batch at a time, they must not change.
ONE_AT_A_TIME = [
    (
        {
            "agents": ("checkpoints/crates_4p_clone.zip", "heuristic"),  # shipped at 23585a6
            "options": {"deal_schedule": [3, 2]},
        },
        ("fd8fd2bc2086809c", 6),
    ),
    (
        {
            "agents": ("greedy", "random", "heuristic"),
            "preset": "kreights",
            "num_players": 3,
            "deals": 2,
            "options": {"deal_schedule": [2, 1]},
        },
        ("5dd9782ff22799e4", 6),
    ),
    (
        {
            "agents": ("greedy", "random"),
            "num_players": 5,
            "deals": 2,
            "options": {"deal_schedule": [2, 1]},
        },
        ("8a17cb412ed63cc9", 4),
    ),
    (
        {"agents": ("heuristic", "random"), "preset": "crazy_eights", "deals": 2, "options": {}},
        ("6b6a437d726c67ef", 4),
    ),
]


def _digest(records: list[GameRecord]) -> tuple[str, int]:
    import dataclasses
    import hashlib

    text = json.dumps([dataclasses.asdict(r) for r in records], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16], len(records)


@pytest.mark.parametrize(("kw", "expected"), ONE_AT_A_TIME, ids=[str(c[0]) for c in ONE_AT_A_TIME])
@pytest.mark.parametrize("engine", ["auto", "reference"])
def test_batched_games_keep_the_records_of_one_game_at_a_time(kw, expected, engine):
    """Every seat's points, pressures, hand points, counts drawn, stars and the standing: the
    compiled engine ("auto": it plays every table here, crazy_eights included) and the
    reference engine's batch give the records the one-game-at-a-time harness gave."""
    num_players = kw.get("num_players", 3 if kw.get("preset") == "crazy_eights" else 4)
    cfg = config(**{"deals": 3, **kw, "num_players": num_players, "engine": engine})
    assert _digest(run(cfg, progress=False)) == expected


def test_the_engines_give_the_same_records_deal_for_deal():
    cfg = config(agents=("heuristic", "greedy"), preset="craits", deals=2)
    compiled = run(replace(cfg, engine="vector"), progress=False)
    assert compiled == run(replace(cfg, engine="reference"), progress=False)
    with pytest.raises(ValueError, match="cannot play an agent that looks ahead"):
        run(replace(cfg, agents=("search", "greedy"), engine="vector"), progress=False)


def test_a_game_past_the_compiled_engines_scores_sends_the_run_to_the_reference_engine(
    monkeypatch,
):
    """A runaway hand (a side past 58 doubling pressures) overflows the compiled engine's
    64-bit scores: the run is played again on the reference engine, where points are exact,
    and gives the records the reference engine gives."""
    from train.evaluation import games
    from train.evaluation.tournament import game_tasks

    cfg = config(deals=2)
    tasks = game_tasks(cfg)
    reference = games.play_games(replace(cfg, engine="reference"), tasks)
    real_play = games._play
    engines = []

    def overflow_on_the_compiled_engine(config, tasks, watch, table, ahead, engine):
        engines.append(engine)
        if engine != "reference":
            raise OverflowError("game 0: a side took more than 58 pressures")
        return real_play(config, tasks, watch, table, ahead, engine)

    monkeypatch.setattr(games, "_play", overflow_on_the_compiled_engine)
    assert games.play_games(cfg, tasks) == reference
    assert engines == ["auto", "reference"]
    with pytest.raises(ValueError, match="58 pressures; run with --engine auto"):
        games.play_games(replace(cfg, engine="vector"), tasks)
