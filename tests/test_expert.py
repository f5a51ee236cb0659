"""Expert iteration (train/expert.py): rounds of labels, distillation, refinement and checks,
end to end on a tiny budget; resume; the split labelling command; the refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.checkpoints import TableRecord, load_network, read_checkpoint
from crates_env.table_observation import make_observer
from train.cli import main
from train.config import load_config
from train.expert import (
    STATE,
    distil,
    label_plan,
    label_round,
    labels_folder,
    round_labels,
    start_model,
    train_expert,
)
from train.imitation import Gains, Hold, clone, policy_heads
from train.labels import Labels, chunk_path, label

# torch on one thread while these tests run (the suite's threads as they were after them)
pytestmark = pytest.mark.usefixtures("one_torch_thread")

# One hand of three cards; the search looks at every choice with two re-deals.
TINY = [
    'init=""',  # a fresh network each round (the config fine-tunes the shipped one)
    "expert.base=heuristic",  # and searches over HeuristicAgent in round 1 (the config: shipped)
    "num_envs=2",
    "net_arch=[16]",
    "progress_bar=false",
    "rules={deal_schedule: [3]}",
    "expert.rounds=2",
    "expert.samples=2",
    "expert.stock_max=60",
    "expert.chunks=2",
    "expert.games_per_chunk=2",
    "expert.workers=1",
    "expert.epochs=2",
    "expert.batch_size=64",
    "eval.deals=2",
    "eval.baselines=[random]",
    "eval.final_deals=2",
]


@pytest.fixture(autouse=True)
def _checks_in_process(monkeypatch):
    """The rounds' checks play their few games here rather than in worker processes."""
    monkeypatch.setattr("train.evaluation.baselines.eval_workers", lambda chunks: 1)


def tiny(tmp_path, *more: str):
    return load_config(
        "configs/crates_4p_expert.yaml",
        [*TINY, f"runs_dir={tmp_path}", f"expert.labels={tmp_path / 'labels'}", *more],
    )


def test_two_rounds_label_distil_check_and_hand_on_the_network(tmp_path, monkeypatch):
    passes = []  # each distillation's epochs

    def counted_clone(policy, demos, epochs, *args, **kwargs):
        passes.append(epochs)
        return clone(policy, demos, epochs, *args, **kwargs)

    monkeypatch.setattr("train.expert.clone", counted_clone)
    # two chunks and two epochs in round 1, one chunk and one epoch in round 2
    config = tiny(tmp_path, "expert.chunks=[2, 1]", "expert.epochs=[2, 1]")
    latest = train_expert(config)
    assert passes == [2, 1]
    run = config.run_dir
    rounds = json.loads((run / STATE).read_text())["rounds"]
    assert [d["round"] for d in rounds] == [1, 2]
    first, second = run / "round_1" / "network.zip", run / "round_2" / "network.zip"
    assert rounds[0]["base"] == "heuristic" and rounds[1]["base"] == str(first)
    assert rounds[1]["network"] == str(second)
    assert latest.read_bytes() == second.read_bytes()
    for d in rounds:  # each round: its labels, the agreement measured, a standing checked
        assert d["new_rows"] > 0 and 0 <= d["agreement"] <= 1 and -1 <= d["score"] <= 1
    # round 2 searched over round 1's network and learned from both rounds' labels
    assert "base=" + str(first) in label_plan(config, 2).search
    assert rounds[1]["positions"] == rounds[0]["positions"] + rounds[1]["new_rows"]
    labelled = {r: sorted(p.name for p in labels_folder(config, r).iterdir()) for r in (1, 2)}
    assert labelled == {1: ["chunk_00000.npz", "chunk_00001.npz"], 2: ["chunk_00000.npz"]}
    events = list((run / "tb" / "expert").glob("events.out.tfevents.*"))
    assert events and b"expert/agreement" in events[0].read_bytes()
    assert b"eval/vs_random/win_rate" in events[0].read_bytes()


def test_a_resumed_run_keeps_its_rounds_and_labels_only_what_is_missing(tmp_path):
    one = tiny(tmp_path, "expert.rounds=1")
    train_expert(one)
    network = one.run_dir / "round_1" / "network.zip"
    stamp = network.stat().st_mtime_ns
    folder = labels_folder(one, 1)
    kept = Labels.load(chunk_path(folder, 0))
    lost = chunk_path(folder, 1).read_bytes()
    chunk_path(folder, 1).unlink()  # as if a share of round 1 were lost: only it is relabelled
    with pytest.raises(ValueError, match="already has"):
        train_expert(one)  # a fresh run never writes over one
    train_expert(tiny(tmp_path, "expert.rounds=2"), resume=True)
    assert network.stat().st_mtime_ns == stamp  # round 1 is not made again
    # round 2 pools round 1's chunks as named: the lost one made again, the same bytes
    assert chunk_path(folder, 1).read_bytes() == lost
    assert np.array_equal(Labels.load(chunk_path(folder, 0)).observations, kept.observations)
    rounds = json.loads((one.run_dir / STATE).read_text())["rounds"]
    assert [d["round"] for d in rounds] == [1, 2]


def test_a_round_labels_and_learns_exactly_the_chunks_its_config_names(tmp_path, monkeypatch):
    """expert.chunks as ranges (two labellers' shares) labels those chunks, and the round learns
    them alone: a chunk the shared folder holds beyond them is not read (it was, before)."""
    config = tiny(tmp_path, "expert.rounds=1", 'expert.chunks="0:1,3:4"')
    assert config.expert.round_chunks(1) == [0, 3]
    folder = labels_folder(config, 1)
    plan = label_plan(config, 1)
    stray = next(iter(label(plan, folder, [2])))  # another run's share in the same folder
    learned = []

    def counted_distil(config, round_, labels, *args, **kwargs):
        learned.append(labels.games)
        return distil(config, round_, labels, *args, **kwargs)

    monkeypatch.setattr("train.expert.distil", counted_distil)
    train_expert(config)
    assert stray > 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "chunk_00000.npz",
        "chunk_00002.npz",
        "chunk_00003.npz",
    ]
    assert learned == [2 * config.expert.games_per_chunk]  # chunks 0 and 3, not 2
    chunk_path(folder, 3).unlink()
    with pytest.raises(ValueError, match=r"1 of the 2 chunks to learn are not in .*chunk 3"):
        round_labels(config, 1)


def test_ppo_refines_each_round_from_its_distilled_network(tmp_path):
    config = tiny(tmp_path, "expert.rounds=1", "expert.ppo_steps=32", "ppo.n_steps=16",
                  "ppo.batch_size=32", "ppo.n_epochs=1", "eval.every=1000000")  # fmt: skip
    latest = train_expert(config)
    ppo_run = config.run_dir / "round_1" / "ppo"
    state = json.loads((ppo_run / "state.json").read_text())
    assert state["num_timesteps"] >= 32
    assert json.loads((config.run_dir / STATE).read_text())["rounds"][0]["network"] == str(
        ppo_run / "latest.zip"
    )
    assert latest.read_bytes() == (ppo_run / "latest.zip").read_bytes()


def test_with_init_each_round_fine_tunes_the_network_before_it(tmp_path):
    first = train_expert(tiny(tmp_path, "run_name=fresh", "expert.rounds=1"))
    config = tiny(tmp_path, "run_name=tuned", f"init={first}", "expert.learning_rate=0.000000001")
    train_expert(config)
    # a learning rate too small to move the weights: each round's network is the one before
    start = load_network(first).policy.state_dict()
    for r in (1, 2):
        tuned = load_network(config.run_dir / f"round_{r}" / "network.zip").policy.state_dict()
        for name, value in tuned.items():
            assert torch.allclose(value, start[name], atol=1e-6), (r, name)
    rounds = json.loads((config.run_dir / STATE).read_text())["rounds"]
    assert rounds[1]["base"] == str(config.run_dir / "round_1" / "network.zip")


def test_a_table_without_a_network_learns_from_the_search_over_another_tables(tmp_path):
    crates = train_expert(tiny(tmp_path, "run_name=crates", "expert.rounds=1"))
    kreights = ["preset=kreights", f"init={crates}", f"expert.base={crates}",
                f"expert.labels={tmp_path / 'kreights_labels'}"]  # fmt: skip
    refused = tiny(tmp_path, "run_name=refused", *kreights)
    with pytest.raises(ValueError, match="it learned 4-player crates, and this table is 4-pl"):
        train_expert(refused)  # before any labelling
    assert not labels_folder(refused, 1).exists()
    config = tiny(tmp_path, "run_name=kreights", *kreights, "init_other_table=true")
    # round 1 searches over the crates network at this table; round 2 over its own network
    assert label_plan(config, 1).search.endswith(f",base={crates},other_table=true")
    assert "other_table" not in label_plan(config, 2).search
    latest = train_expert(config)
    assert read_checkpoint(latest).tables == (TableRecord.of(config.ruleset()),)
    assert read_checkpoint(latest).learned().startswith("4-player kreights")


def test_an_init_of_another_shape_is_refused_before_any_labelling(tmp_path):
    config = tiny(tmp_path, "init=shipped")  # the shipped network is 256 x 256, the run 16
    with pytest.raises(ValueError, match="not a network of this run's shape"):
        train_expert(config)
    assert not labels_folder(config, 1).exists()


def test_a_held_row_keeps_the_policys_choices_and_a_taught_row_learns_the_move():
    own = torch.log_softmax(torch.tensor([[1.0, 2.0, -1e9], [0.0, 0.0, 0.0]]), 1)
    logits = torch.tensor([[1.0, 2.0, -1e9], [0.0, 0.0, 0.0]])
    moves = torch.tensor([0, 2])
    hold = Hold(np.array([True, False]), weight=4.0)
    loss = hold.loss(logits, moves, own, torch.tensor([True, False]))
    # row 0 is where it was (KL 0); row 1 pays 4 x -log(1/3); the mean over the two rows
    assert loss.item() == pytest.approx(4 * np.log(3) / 2)
    moved = hold.loss(torch.tensor([[2.0, 1.0, -1e9], [0.0, 0.0, 0.0]]), moves, own,
                      torch.tensor([True, False]))  # fmt: skip
    kl = float(
        (own[0, :2].exp() * (own[0, :2] - torch.log_softmax(torch.tensor([2.0, 1.0]), 0))).sum()
    )
    assert moved.item() == pytest.approx((kl + 4 * np.log(3)) / 2)


def test_init_starts_a_run_from_a_checkpoints_weights(tmp_path):
    config = tiny(tmp_path, "expert.rounds=1")
    network = train_expert(config)
    plain = load_config(
        "configs/default.yaml",
        [
            "net_arch=[16]",
            "count_features=true",
            "num_envs=2",
            'warm_start.teacher=""',
            f"init={network}",
        ],
    )
    model = start_model(plain, plain.init)
    saved = load_network(network).policy.state_dict()
    for name, value in model.policy.state_dict().items():
        assert torch.equal(value, saved[name]), name
    wide = load_config("configs/default.yaml", ['warm_start.teacher=""', f"init={network}"])
    with pytest.raises(ValueError, match="not a network of this run's shape"):
        start_model(wide, wide.init)


def test_a_table_layout_run_learns_the_seat_layout_labels_widened(tmp_path):
    """The labelled games are played in the seat layout, which the search and HeuristicAgent
    read (a table-layout run's labelling crashed inside HeuristicAgent's kernel before): the
    labels are the same for a run of either layout, and a table-layout run learns them widened
    to its network's layout."""
    table = tiny(tmp_path, "observation=table", "expert.rounds=1")
    seat = tiny(tmp_path, "expert.rounds=1")
    assert label_plan(table, 1).settings() == label_plan(seat, 1).settings()
    network = train_expert(table)
    chunk = Labels.load(chunk_path(labels_folder(table, 1), 0))
    assert chunk.observations.shape[1] == make_observer(seat.ruleset()).size
    widened = make_observer(table.ruleset(), "table").widen(round_labels(seat, 1).observations)
    assert np.array_equal(round_labels(table, 1).observations, widened)
    assert load_network(network).checkpoint.layout[0] == "table"


def test_crates_label_labels_a_share_of_a_round_that_the_run_then_pools(tmp_path, capsys):
    sets = [a for item in [*TINY, f"runs_dir={tmp_path}", f"expert.labels={tmp_path / 'labels'}"]
            for a in ("--set", item)]  # fmt: skip
    assert (
        main(["label", "--config", "configs/crates_4p_expert.yaml", *sets, "--chunks", "1:2"]) == 0
    )
    assert "labelled" in capsys.readouterr().out
    folder = labels_folder(tiny(tmp_path), 1)
    assert chunk_path(folder, 1).is_file() and not chunk_path(folder, 0).exists()
    share = Labels.load(chunk_path(folder, 1))
    train_expert(tiny(tmp_path, "expert.rounds=1"))
    assert np.array_equal(Labels.load(chunk_path(folder, 1)).observations, share.observations)
    assert chunk_path(folder, 0).is_file()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["reward_transform=symlog"], "needs reward_transform: none"),
        (["privileged_critic=true", "count_features=false"], "does not take privileged_critic"),
        (["expert.base=nowhere.zip"], "expert.base must be heuristic, shipped or"),
        (["expert.opponent=genius"], "expert.opponent names 'genius'"),
        (["expert.samples=1"], "expert.z > 0 needs expert.samples >= 2"),
        (["expert.holdout=0.9"], "expert.holdout must be from 0 to 0.5"),
        (["init=nowhere.zip"], "init must be shipped or a checkpoint file"),
        (["expert.objective=moves"], "expert.objective must be one of choice, gains, not 'moves'"),
        (["expert.gain_scale=0"], "expert.gain_scale must be > 0"),
    ],
)
def test_bad_expert_settings_are_refused_by_name(tmp_path, overrides, message):
    with pytest.raises(ValueError, match=message):
        tiny(tmp_path, *overrides)


def test_chunks_are_a_count_or_ranges_read_as_written(tmp_path):
    assert tiny(tmp_path, "expert.chunks=3").expert.round_chunks(1) == [0, 1, 2]
    # YAML 1.1 reads 1:30 as a base-60 number, 90: the config reads the range it says
    assert tiny(tmp_path, "expert.chunks=1:30").expert.round_chunks(1) == list(range(1, 30))
    config = tiny(tmp_path, 'expert.chunks=["0:2,5:7", 3]')
    rounds = [config.expert.round_chunks(r) for r in (1, 2, 3)]
    assert rounds == [[0, 1, 5, 6], [0, 1, 2], [0, 1, 2]]  # the last entry for later rounds


def test_crates_label_labels_the_rounds_own_chunk_count_by_default(tmp_path, capsys):
    sets = [a for item in [*TINY, f"runs_dir={tmp_path}", f"expert.labels={tmp_path / 'labels'}",
                           "expert.chunks=[1, 3]"] for a in ("--set", item)]  # fmt: skip
    assert main(["label", "--config", "configs/crates_4p_expert.yaml", *sets]) == 0
    folder = labels_folder(tiny(tmp_path), 1)
    assert sorted(p.name for p in folder.iterdir()) == ["chunk_00000.npz"]


def test_crates_label_refuses_bad_chunks_and_rounds(tmp_path, capsys):
    args = ["label", "--config", "configs/crates_4p_expert.yaml"]
    for extra, message in [
        (["--chunks", "5:2"], "--chunks takes FIRST:STOP"),
        (["--chunks", "x"], "--chunks takes FIRST:STOP"),
        (["--chunks", "0:4,2:6"], "--chunks takes FIRST:STOP ranges in order and apart"),
        (["--round", "3"], "--round must be from 1 to expert.rounds"),
    ]:
        with pytest.raises(SystemExit):
            main([*args, *extra])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):  # round 2 needs round 1's network
        main([*args, "--round", "2", "--set", f"runs_dir={tmp_path}", "--set", "expert.rounds=2"])
    assert "base network" in capsys.readouterr().err


def test_learn_z_sets_which_changes_the_network_learns_from_the_same_labels(tmp_path):
    """The labels keep every move's gain and its error: a lower bar than the search's own takes
    more of its changes, from the same chunks (the labels do not depend on the bar)."""
    config = tiny(tmp_path, "expert.rounds=1", "expert.z=3", "expert.min_redeals=1")
    eager = tiny(
        tmp_path, "expert.rounds=1", "expert.z=3", "expert.min_redeals=1", "expert.learn_z=0"
    )
    assert label_plan(eager, 1).settings() == label_plan(config, 1).settings()
    assert sum(label_round(config, 1, workers=1, progress=False)) > 0
    labels = round_labels(eager, 1)
    changed = [
        distil(c, 1, labels, tmp_path / f"{i}.zip")[1]["changed"]
        for i, c in enumerate((config, eager))
    ]
    assert changed == [int((labels.target(z, 1) != labels.base).sum()) for z in (3, 0)]
    assert changed[1] > changed[0]


def test_gains_targets_put_the_bonus_on_the_base_move_and_ignore_illegal_moves():
    gains = np.array([[0.0, 12.0, np.nan], [-4.0, 0.0, 30.0]])
    targets = Gains.of(gains, np.array([0, 1]), scale=10.0, bonus=8.0).targets
    assert targets.ravel().tolist() == pytest.approx([0.8, 1.2, 0.0, -0.4, 0.8, 3.0])
    legal = torch.tensor([[True, True, False], [True, True, True]])
    # a common shift of a row's logits changes no probability, so it costs nothing
    shifted = Gains.loss(torch.tensor(targets) + 5.0, torch.tensor(targets), legal).item()
    assert shifted == pytest.approx(0.0, abs=1e-12)
    # row 0 is off by 0.2 at both legal moves (centred: -0.2 and +0.2), row 1 is right
    logits = torch.tensor([[1.0, 1.0, -7.0], [-0.4, 0.8, 3.0]])
    loss = Gains.loss(logits, torch.tensor(targets), legal).item()
    assert loss == pytest.approx((0.2**2 + 0.2**2) / 2 / 2)


def test_the_gains_objective_learns_the_move_the_search_values_beyond_the_bonus(tmp_path):
    """Labels stacked by hand: at every searched position one legal move other than the base's
    is worth 20 points more. With no bonus the network learns to play it; with a bonus of 30
    for the base move it keeps the base move."""
    config = tiny(tmp_path, "expert.rounds=1", "expert.objective=gains", "expert.epochs=40")
    assert sum(label_round(config, 1, workers=1, progress=False)) > 0
    labels = round_labels(config, 1)
    rows = np.flatnonzero(labels.searched & (labels.masks.sum(1) > 1))
    better = np.array([np.flatnonzero(labels.masks[i] & (np.arange(labels.masks.shape[1])
                       != labels.base[i]))[0] for i in rows])  # fmt: skip
    labels.gains[:] = np.where(labels.masks, 0.0, np.nan)
    labels.gains[rows, better] = 20.0
    labels.redeals[:] = 0
    labels.redeals[rows] = 2  # searched: the other positions teach nothing under gains

    def choices(bonus: float) -> np.ndarray:
        settings = ["expert.holdout=0", "expert.learning_rate=0.01", f"expert.base_bonus={bonus}"]
        c = tiny(
            tmp_path, "expert.rounds=1", "expert.objective=gains", "expert.epochs=40", *settings
        )
        policy = load_network(distil(c, 1, labels, tmp_path / f"b{bonus}.zip")[0]).policy
        with torch.no_grad():
            logits = policy_heads(policy, torch.as_tensor(labels.observations[rows]))[0]
        return logits.masked_fill(~torch.as_tensor(labels.masks[rows]), -1e9).argmax(1).numpy()

    assert np.mean(choices(0.0) == better) > 0.9
    assert np.mean(choices(30.0) == labels.base[rows]) > 0.9
