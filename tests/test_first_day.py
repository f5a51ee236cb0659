"""A newcomer's first day on a real machine (issue 40): the env registered in either import
order, configs that load and say what they train, outputs that survive a full or read-only disk
and kill -9, seeds and batch sizes of every integer type, and each unclear message of the fault
campaign naming the problem and the fix. Every case below failed before."""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import errno
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents import Table, make_agent
from crates_env import crates_v0
from crates_env.batch import ReferenceGames
from crates_env.env import render_table
from crates_env.files import write_atomically
from crates_env.processes import CoreShare, interruptible
from crates_env.vector import VectorGame
from train.cli import main
from train.cli.play import play_in_terminal
from train.config import TrainConfig, load_config
from train.evaluation import EvalConfig, lineups, play_games, read_deals
from train.evaluation.replays import replay_game

from .test_cli_errors import fails
from .waiting import crates_command, ctrl_c_at_default, lines_in, wait_for

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
SHORT = ["--rule", "deal_schedule=[2, 1]", "--quiet", "--no-tensorboard", "--workers", "1"]
EVAL = ["eval", "--agents", "heuristic", "random", *SHORT]
# crates label's cheapest searches: a game a chunk, two re-deals a move
LABEL = (
    "expert.samples=2",
    "expert.stock_max=4",
    "expert.deepen=0",
    "expert.min_redeals=1",
    "expert.games_per_chunk=1",
    "rules={deal_schedule: [2, 1]}",
)


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


# --- imports and installs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "imports",
    ["import crates_env; import gymnasium as gym", "import gymnasium as gym; import crates_env"],
)
def test_crates_v0_is_registered_whatever_the_import_order(imports):
    done = run(f"{imports}; print(gym.make('Crates-v0').reset(seed=1)[0].shape)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(284,)"


def test_the_engine_alone_still_imports_neither_gymnasium_nor_torch():
    done = run("import sys, crates_env; print('gymnasium' in sys.modules, 'torch' in sys.modules)")
    assert done.stdout.strip() == "False False", done.stderr


def test_numbas_cache_is_in_the_users_cache_folder_not_the_package(tmp_path):
    code = (
        "import numba.core.config as c, agents.heuristic_batch as h, crates_env.vector.kernels as k"
        "\nfrom numba.core.registry import CPUDispatcher"
        "\ncompiled = [f for m in (h, k) for f in vars(m).values() if isinstance(f, CPUDispatcher)]"
        "\nprint(c.CACHE_DIR, len(compiled), {type(f._cache).__name__ for f in compiled})"
        "\nprint(*{str(f._cache._cache_path) for f in compiled})"
    )
    done = run(code, XDG_CACHE_HOME=str(tmp_path), NUMBA_CACHE_DIR="")
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "crates-rl" / "numba"
    settings, paths = done.stdout.splitlines()
    where, count, kinds = settings.split(" ", 2)
    # a folder of its own for these sources (crates_env.vector.engine_digest)
    assert Path(where).parent == folder and len(Path(where).name) == 12
    assert int(count) > 10 and kinds == "{'FunctionCache'}"
    assert all(Path(p).is_relative_to(folder) for p in paths.split())


# --- configs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_config_loads_and_validates(path):
    config = load_config(path)
    assert config.mode in ("ppo", "expert")
    assert (config.mode == "expert") == (config.expert.rounds > 0)


def test_trainconfigs_defaults_are_default_yamls():
    assert load_config(ROOT / "configs" / "default.yaml") == TrainConfig()
    assert load_config(None) == TrainConfig()


def test_a_partial_section_keeps_the_other_defaults():
    config = load_config(None, ["warm_start.games=7"])
    assert (config.warm_start.teacher, config.warm_start.games) == ("heuristic", 7)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["expert.rounds=2"],
            "mode ppo does not read expert.rounds: remove them, or set mode: expert",
        ),
        (["mode=expert"], "mode expert needs expert.rounds >= 1"),
        (
            ["mode=expert", "expert.rounds=1", "total_steps=5"],
            "mode expert does not read total_steps",
        ),
        (["mode=sarsa"], "mode 'sarsa' is not one of ppo, expert"),
    ],
)
def test_the_training_mode_is_explicit_and_refuses_keys_it_does_not_read(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, overrides)


def test_the_expert_config_refuses_a_warm_start():
    with pytest.raises(ValueError, match=r"mode expert does not read warm_start\.games"):
        load_config(ROOT / "configs" / "crates_4p_expert.yaml", ["warm_start.games=3"])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("=5", "override '=5' must look like key=value"),
        ("ppo.=5", "override 'ppo.=5' must look like key=value"),
    ],
)
def test_a_key_less_override_is_named(override, message, capsys):
    err = fails(["train", "--set", override], capsys)
    assert message in err


def test_an_empty_string_key_is_the_empty_string():
    assert load_config(None, ["warm_start.teacher="]).warm_start.teacher == ""


def test_a_binary_config_names_the_file(tmp_path, capsys):
    path = tmp_path / "model.yaml"
    path.write_bytes(bytes(range(256)))
    err = fails(["train", "--config", str(path)], capsys)
    assert f"config file {path} is not text; give a YAML file" in err


# --- training shares the machine ----------------------------------------------------------------


def test_torch_threads_are_as_they_were_after_a_run(tmp_path):
    from train.ppo import train

    from .test_train import tiny

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train(tiny(tmp_path))
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)  # the rest of the suite's, as it was


def test_a_busy_core_is_not_free():
    share = CoreShare()
    if len(share.cores) < 2:
        pytest.skip("one core: nothing to share")
    share.free()  # start a look
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:  # each look measures since the last one of a second or more: until it sees the spin
        wait_for(lambda: share.free() < len(share.cores), 30, "the busy core seen")
    finally:
        spin.kill()
        spin.wait()


def test_training_says_what_it_does_in_every_phase(tmp_path, capsys):
    from .test_train import TINY

    argv = [
        "train",
        *[a for item in TINY for a in ("--set", item)],
        "--set",
        f"runs_dir={tmp_path}",
    ]
    more = ["warm_start.teacher=heuristic", "warm_start.games=2", "eval.final_deals=1"]
    more += ["eval.deals=1", "eval.baselines=[random]", "eval.replays=0"]
    assert main([*argv, *[a for item in more for a in ("--set", item)]]) == 0
    out = capsys.readouterr().out
    for line in (
        "warm start: 2/2 teacher games",
        "warm start: 10/10 epochs",
        "check at step 0, against the baselines:",
        "1 deals against random: win rate",
        "PPO: 64/64 steps",
        "final evaluation: 1 deals against each baseline",
    ):
        assert line in out, out


# --- outputs ------------------------------------------------------------------------------------


@contextlib.contextmanager
def full_disk(folder: Path, after: int = 10):
    """Every file opened for writing under ``folder`` takes ``after`` bytes, then the disk is
    full (ENOSPC), as a real full disk fails mid-write: the error of ``write()`` names no file
    (the message must name it all the same)."""
    real_open = io.open

    class Full(io.TextIOWrapper):
        pass

    def opening(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        under = isinstance(file, str | os.PathLike) and Path(file).resolve().is_relative_to(
            folder.resolve()
        )
        if not under or not set(mode) & set("wax+"):
            return handle
        write, room = handle.write, [after]

        def filling(data):
            if len(data) <= room[0]:
                room[0] -= len(data)
                return write(data)
            write(data[: room[0]])
            room[0] = 0
            raise OSError(errno.ENOSPC, "No space left on device")

        handle.write = filling
        return handle

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builtins, "open", opening)
        patch.setattr(io, "open", opening)
        yield


@contextlib.contextmanager
def read_only(folder: Path):
    """``folder`` made read-only: by its mode bits, or, for root (who writes anyway), as a
    read-only mount."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only folder here: {mounted.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def no_traceback_one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_eval_onto_a_full_disk_shows_the_results_and_leaves_no_half_file(tmp_path, capsys):
    out = tmp_path / "out"
    with full_disk(tmp_path), pytest.raises(SystemExit) as stop:
        main([*EVAL, "--deals", "3", "--out", str(out)])
    assert stop.value.code == 2
    done = capsys.readouterr()
    line = no_traceback_one_line(done.err)
    assert "No space left on device (free some space, or write elsewhere)" in line
    assert "the results are the table above, not saved" in line
    assert "heuristic - random" in done.out  # the results, shown
    # nothing half written: no deals.csv with a torn row, no 0-byte report.json, no temp file
    assert list(out.iterdir()) == []


def test_eval_onto_a_nearly_full_disk_says_which_files_it_saved(tmp_path, capsys):
    """Room for the results, not for the chart: the line says what was saved (it said "not
    saved") and names the file it could not write."""
    out = tmp_path / "out"
    with full_disk(tmp_path, after=20_000), pytest.raises(SystemExit):
        main([*EVAL, "--deals", "3", "--out", str(out)])
    line = no_traceback_one_line(capsys.readouterr().err)
    assert line == (
        f"crates eval: error: cannot write {out / 'points.png'}: No space left on device (free "
        "some space, or write elsewhere); the results are the table above, saved only "
        f"report.json, agents.csv, deals.csv in {out}"
    )
    assert sorted(p.name for p in out.iterdir()) == ["agents.csv", "deals.csv", "report.json"]
    assert json.loads((out / "report.json").read_text())["config"]["deals"] == 3


def test_curves_onto_a_full_disk_keeps_the_old_png_and_names_the_file(tmp_path, capsys):
    from .test_curves import FIRST, PNG_MAGIC, write_log

    write_log(tmp_path / "tb" / "ppo_1", FIRST)
    png = tmp_path / "curves.png"
    png.write_bytes(PNG_MAGIC + b"the curves of yesterday")
    with full_disk(tmp_path, after=1000), pytest.raises(SystemExit):
        main(["curves", str(tmp_path)])
    line = no_traceback_one_line(capsys.readouterr().err)
    assert line.startswith(f"crates curves: error: cannot write {png}: No space left on device")
    assert png.read_bytes() == PNG_MAGIC + b"the curves of yesterday"  # not a torn PNG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curves.png", "tb"]


def test_eval_into_a_read_only_folder_refuses_before_playing(tmp_path, capsys):
    folder = tmp_path / "ro"
    with read_only(folder):
        err = fails([*EVAL, "--deals", "2", "--out", str(folder / "out")], capsys)
    assert f"--out {folder / 'out'} cannot be made: Read-only file system" in err or (
        "is not writable" in err
    )


def test_replay_onto_a_full_disk_leaves_no_partial_page(tmp_path, capsys):
    page = tmp_path / "game.html"
    with full_disk(tmp_path), pytest.raises(SystemExit) as stop:
        main(["replay", "--agents", "heuristic", "random", "--out", str(page)])
    assert stop.value.code == 1
    line = no_traceback_one_line(capsys.readouterr().err)
    assert line.startswith("crates replay: error: cannot write ")
    assert "No space left on device" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (".", "is a folder; give a file name, e.g."),
        ("afile/game.html", "afile is a file, not a folder; give another path"),
    ],
)
def test_replay_out_that_cannot_be_a_page_is_refused_before_playing(
    tmp_path, monkeypatch, capsys, out, message
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    err = fails(["replay", "--agents", "heuristic", "random", "--out", out], capsys)
    assert message in err


def test_replay_into_a_read_only_folder_is_one_line(tmp_path, capsys):
    folder = tmp_path / "ro"
    with read_only(folder):
        err = fails(
            ["replay", "--agents", "heuristic", "random", "--out", str(folder / "g.html")], capsys
        )
    assert "is not writable; give a writable folder" in err


def test_train_onto_a_full_disk_is_one_line(tmp_path, capsys):
    from .test_train import TINY

    argv = [
        "train",
        *[a for item in TINY for a in ("--set", item)],
        "--set",
        f"runs_dir={tmp_path}",
    ]
    with full_disk(tmp_path, after=0), pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 1
    line = no_traceback_one_line(capsys.readouterr().err)
    assert line.startswith("crates train: error: cannot write ") and "No space left" in line


def test_train_into_a_read_only_folder_is_one_line(tmp_path, capsys):
    from .test_train import TINY

    folder = tmp_path / "ro"
    argv = ["train", *[a for item in TINY for a in ("--set", item)], "--set", f"runs_dir={folder}"]
    with read_only(folder), pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 1
    line = no_traceback_one_line(capsys.readouterr().err)
    assert f"crates train: error: cannot write {folder / 'default'}: Read-only file system" in line


def label_error(tmp_path: Path, labels: Path, broken, capsys) -> str:
    """``crates label`` of one chunk into ``labels`` while ``broken`` (a context) holds: it
    must stop with exit code 1 and no traceback; its last line (after the progress bar's)."""
    argv = ["label", "--config", str(ROOT / "configs" / "crates_4p_expert.yaml"), "--workers", "1"]
    for item in (*LABEL, f"runs_dir={tmp_path}", f"expert.labels={labels}", "expert.chunks=1"):
        argv += ["--set", item]
    with broken, pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_label_into_a_read_only_folder_is_one_line(tmp_path, capsys):
    folder = tmp_path / "ro"
    assert label_error(tmp_path, folder, read_only(folder), capsys) == (
        f"crates label: error: cannot write {folder / 'round_1'}: Read-only file system (write "
        "to a folder on a writable disk)"
    )


def test_label_onto_a_full_disk_is_one_line(tmp_path, capsys):
    labels = tmp_path / "labels"
    assert label_error(tmp_path, labels, full_disk(tmp_path), capsys) == (
        f"crates label: error: cannot write {labels / 'round_1' / 'chunk_00000.npz'}: No space "
        "left on device (free some space, or write elsewhere)"
    )
    assert not list(labels.rglob("*.npz"))


def test_kill_9_of_eval_keeps_the_deals_it_finished(tmp_path):
    out = tmp_path / "killed"
    randoms = ["eval", "--agents", "random", "random", *SHORT]
    command = [*randoms, "--deals", "100000", "--out", str(out)]
    proc = crates_command(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deals = out / "deals.csv"
    try:
        wait_for(lambda: lines_in(deals) > 1, 240, "a deal on disk", proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    names, points, shares, standings = read_deals(deals)
    kept = len(points)
    assert kept >= 1 and names == ["random", "random"]
    # the kept deals are those a run of that many deals plays, whole
    assert main([*randoms, "--deals", str(kept), "--out", str(tmp_path / "again")]) == 0
    again = read_deals(tmp_path / "again" / "deals.csv")
    np.testing.assert_array_equal(points, again[1])
    np.testing.assert_array_equal(shares, again[2])
    np.testing.assert_array_equal(standings, again[3])


def test_a_torn_last_row_of_a_killed_run_is_left_out(tmp_path):
    path = tmp_path / "deals.csv"
    path.write_text("deal,points a,points b,win share a,win share b\n0,1,2,1,0\n1,5,")
    names, points, _, _ = read_deals(path)
    assert names == ["a", "b"] and points.tolist() == [[1.0, 2.0]]


def test_replay_reaches_a_far_deal_without_playing_those_before_it():
    deal = 10**12
    config = EvalConfig(
        agents=("heuristic", "random"), deals=deal + 1, options={"deal_schedule": [2]}
    )
    _, record = replay_game(config, deal, 1)
    (expected,) = play_games(config, [(deal, 1, lineups(2, 4)[1])])
    assert record == expected


# --- seeds and sizes of every integer type ------------------------------------------------------


class FirstLegal:
    """A deterministic opponent: the first legal move."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.parametrize(
    "seed", [np.int64(3), np.uint64(2**64 - 1), np.int32(7), 2**63, 2**64, 2**64 + 5, 2**100]
)
def test_vector_env_seeds_of_every_integer_type_deal_the_single_envs_games(seed):
    vector = gym.make_vec(
        "Crates-v0", num_envs=2, vectorization_mode="vector_entry_point", opponents=FirstLegal()
    )
    obs, _ = vector.reset(seed=seed)
    for i in range(2):
        single = gym.make("Crates-v0", opponents=FirstLegal())
        alone, _ = single.reset(seed=int(seed) + i)
        np.testing.assert_array_equal(obs[i], alone)


def test_the_single_env_with_its_default_random_seats_repeats_a_seed():
    first = [gym.make("Crates-v0").reset(seed=2**64)[0] for _ in range(2)]
    np.testing.assert_array_equal(*first)


@pytest.mark.parametrize("batch", [VectorGame, ReferenceGames])
def test_batch_sizes_of_numpy_ints_are_taken_and_impossible_ones_refused_at_once(batch):
    assert batch(np.int64(3), deal_schedule=[2]).num_games == 3
    with pytest.raises(ValueError, match=r"num_games must be from 1 to .* not 1,000,000,000"):
        batch(10**9)


@pytest.mark.parametrize("batch", [VectorGame, ReferenceGames])
def test_a_finished_game_without_autoreset_is_not_stepped_and_no_game_moves(batch):
    games = batch(2, deal_schedule=[1], autoreset=False)
    games.reset(seeds=[1, 2])
    rng = np.random.default_rng(0)
    while not games.game_over[0]:
        games.step(games.random_actions(rng), active=np.array([True, False]))
    before = games.observe().copy(), games.to_play.copy()
    with pytest.raises(ValueError, match=r"game 0 is over \(autoreset=False\)"):
        games.step(games.random_actions(rng))
    np.testing.assert_array_equal(games.observe(), before[0])
    np.testing.assert_array_equal(games.to_play, before[1])


def test_hand_log_past_the_hands_played_is_refused():
    games = VectorGame(1, deal_schedule=[2])
    games.reset(seeds=0)
    with pytest.raises(ValueError, match=r"first must be 0\.\.0 \(the game has finished 0 hands\)"):
        games.hand_log(0, 10**9)


# --- messages that name the problem and the fix --------------------------------------------------


def test_a_one_level_import_path_is_imported_with_a_pythonpath_hint(tmp_path, monkeypatch, capsys):
    err = fails([*EVAL, "--agents", "my_bots:MyAgent", "random", "--deals", "1"], capsys)
    assert (
        "cannot import my_bots" in err and "add the folder that holds my_bots to PYTHONPATH" in err
    )
    (tmp_path / "my_bots.py").write_text(
        "import numpy as np\nclass MyAgent:\n    def act(self, obs, mask):\n"
        "        return int(np.flatnonzero(mask)[0])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    table = Table.from_rules("crates", 4)
    assert type(make_agent("my_bots:MyAgent", table).agent).__name__ == "MyAgent"  # adapted


@pytest.mark.parametrize("name", ["gone.pt", "gone.zip", "runs/x/gone.pt2"])
def test_a_missing_checkpoint_path_says_so(name, capsys):
    err = fails([*EVAL, "--agents", name, "random", "--deals", "1"], capsys)
    assert f"agent '{name}': no such file; check the path of the checkpoint" in err


def test_weights_that_are_not_weights_say_what_to_do(tmp_path):
    from train.ppo import train

    from .test_train import tiny

    config = tiny(tmp_path)
    train(config)
    snapshot = next(config.run_dir.rglob("*.pt"))
    torch.save({"weights": np.zeros(3)}, snapshot)  # loads only with weights_only=False
    with pytest.raises(ValueError) as info:
        train(load_config(None, [*config_overrides(config), "total_steps=128"]), resume=True)
    text = str(info.value)
    assert "Weights only load failed" not in text
    assert f"snapshot {snapshot} is damaged (it holds more than weights" in text
    assert "restore it from a copy of the run, or remove it from" in text


def config_overrides(config: TrainConfig) -> list[str]:
    from .test_train import TINY

    return [*TINY, f"runs_dir={config.runs_dir}"]


def test_a_damaged_checkpoint_says_what_to_give_instead(tmp_path, capsys):
    path = tmp_path / "bad.zip"
    with (
        zipfile.ZipFile(ROOT / "checkpoints" / "crates_4p.zip") as z,
        zipfile.ZipFile(path, "w") as o,
    ):
        for name in z.namelist():
            o.writestr(name, b"" if name == "policy.pt" else z.read(name))
    err = fails([*EVAL, "--agents", str(path), "random", "--deals", "1"], capsys)
    assert f"{path}: its policy.pt is not a torch file of tensors" in err
    assert "give a checkpoint that crates train wrote" in err


def test_the_end_of_a_game_names_the_winning_side_and_the_hands_played():
    env = crates_v0.raw_env(deal_schedule=[2, 1])
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not env.game.game_over:
        env.step(int(rng.choice(env.game.legal_actions())))
    text = render_table(env.game)
    assert "2 hands played" in text and "hand 3/2" not in text
    (winner,) = env.game.winners()
    seats = "&".join(f"p{s}" for s in range(4) if s % 2 == winner)
    scores = env.game.scores
    margin = abs(scores[0] - scores[1])
    assert f"game over: {seats} win by {margin} points" in text


def test_play_says_whether_you_won():
    lines: list[str] = []
    scores = play_in_terminal(
        seat=0,
        opponents=["greedy"],
        options={"deal_schedule": [1]},
        seed=2,
        read=lambda prompt: "1",
        write=lines.append,
    )
    won = scores[0] < scores[1]
    assert lines[-1] == (
        "you (p0) win" if won else "you (p0) lose" if scores[0] > scores[1] else "you (p0) tie"
    )


def test_ctrl_c_of_label_says_what_it_kept(tmp_path):
    labels = tmp_path / "labels"
    command = ["label", "--config", "configs/crates_4p_expert.yaml", "--workers", "1"]
    for item in (*LABEL, f"runs_dir={tmp_path}", f"expert.labels={labels}", "expert.chunks=1000"):
        command += ["--set", item]
    proc = crates_command(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: any(labels.rglob("chunk_*.npz")), 240, "a chunk labelled", proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "interrupted: " in err and "are kept in" in err
    assert "Traceback" not in err


# --- a stop lands whatever the command is doing --------------------------------------------------


@pytest.fixture(name="ctrl_c_at_default")
def _ctrl_c_at_default():
    with ctrl_c_at_default():
        yield


def python_for(seconds: float) -> None:
    """Python code running ``seconds``: a pending signal's handler runs in it."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl_c", "kill"])
def test_a_stop_dropped_by_a_callback_from_compiled_code_still_stops(signum, ctrl_c_at_default):
    """numba's compiler calls back into Python through ctypes, which drops an exception raised
    there: a Ctrl-C during the first compile of a kernel was lost and `crates label` went on."""
    callback = ctypes.CFUNCTYPE(None)(lambda: signal.raise_signal(signum))
    with interruptible(), pytest.raises(KeyboardInterrupt):
        callback()
        python_for(10)


def test_a_stop_during_a_write_lands_once_the_file_is_whole(tmp_path, ctrl_c_at_default):
    """A Ctrl-C inside numpy's zip writer left the archive half-closed: `crates label` said
    "Can't close the ZIP file while there is an open writing handle" and exited 2."""
    path = tmp_path / "chunk.npz"

    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w") as archive, archive.open("hand.npy", "w") as member:
            member.write(b"half")
            signal.raise_signal(signal.SIGINT)
            member.write(b" and half")

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, write)
    assert zipfile.ZipFile(path).read("hand.npy") == b"half and half"
    assert [p.name for p in tmp_path.iterdir()] == ["chunk.npz"]


def test_a_stop_raised_in_code_run_from_a_string_exits_130(tmp_path):
    """CPython marks a bare KeyboardInterrupt that leaves code run from a string (as numba's
    compiler runs) as never handled, and under ``python -m`` ends the process by SIGINT after
    its exit 130: `python -m train.cli label` stopped during a compile ended by signal."""
    (tmp_path / "stopped_in_exec.py").write_text(
        "import signal, sys\n"
        "from crates_env.processes import interruptible\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "try:\n"
        "    with interruptible():\n"
        "        exec('import signal; signal.raise_signal(signal.SIGINT)')\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(130)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    stopped = subprocess.run([sys.executable, "-m", "stopped_in_exec"], cwd=tmp_path, env=env)
    assert stopped.returncode == 130
