"""Training curves: reading a run's TensorBoard logs, the plot and ``crates curves``."""

from __future__ import annotations

import matplotlib.image
import numpy as np
import pytest
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat

from train.cli import main
from train.evaluation.curves import DPI, FIGSIZE, draw, moving_average, plot_run, read_scalars

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# What a first run logs (tb/ppo_1) and what its resumed continuation adds (tb/ppo_2), as
# {step: {tag: value}}; every value is exact in float32, the type TensorBoard stores.
FIRST = {
    100: {"game_vs_random/win_rate": 0.25, "train/entropy_loss": -1.5, "train/value_loss": 4.0},
    200: {
        "game_vs_random/win_rate": 0.5,
        "train/entropy_loss": -1.25,
        "train/value_loss": 3.0,
        "eval/vs_random/win_rate": 0.375,
        "eval/vs_random/relative_difference": 0.125,
    },
}
RESUMED = {
    300: {"game_vs_random/win_rate": 0.75, "game_vs_snapshot/win_rate": 0.5},
    400: {
        "game_vs_random/win_rate": 1.0,
        "eval/vs_random/win_rate": 0.625,
        "eval/vs_random/relative_difference": -0.25,
    },
}


def write_log(folder, steps: dict[int, dict[str, float]]) -> None:
    """Log ``{step: {tag: value}}`` the way ``crates train`` does: SB3's TensorBoard logger."""
    logger = Logger(folder=None, output_formats=[TensorBoardOutputFormat(str(folder))])
    for step, values in steps.items():
        for tag, value in values.items():
            logger.record(tag, value)
        logger.dump(step)
    logger.close()


def expected(*logs: dict[int, dict[str, float]]) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for log in logs:
        for step, values in log.items():
            for tag, value in values.items():
                out.setdefault(tag, []).append((step, value))
    return out


@pytest.fixture
def run_dir(tmp_path):
    write_log(tmp_path / "tb" / "ppo_1", FIRST)
    write_log(tmp_path / "tb" / "ppo_2", RESUMED)
    return tmp_path


def test_read_scalars_merges_the_resumed_run_by_step(run_dir):
    assert read_scalars(run_dir) == expected(FIRST, RESUMED)


def test_a_resumed_run_replaces_what_an_older_file_logged_past_its_restart(tmp_path):
    # The first run got to step 300 but its last checkpoint was before 200: the resumed run
    # logs 200 and 300 again, and its points are the ones that count.
    write_log(tmp_path / "tb" / "ppo_1", {100: {"a": 1.0}, 200: {"a": 2.0}, 300: {"b": 3.0}})
    write_log(tmp_path / "tb" / "ppo_1", {200: {"a": 20.0}, 250: {"c": 25.0}})
    assert read_scalars(tmp_path) == {"a": [(100, 1.0), (200, 20.0)], "c": [(250, 25.0)]}


def test_plot_run_writes_a_png_of_the_figure_size(run_dir, tmp_path):
    out = plot_run(run_dir, tmp_path / "plots" / "curves.png", title="a run")
    assert out == tmp_path / "plots" / "curves.png"
    assert out.read_bytes().startswith(PNG_MAGIC)
    height, width, _ = matplotlib.image.imread(out).shape
    assert (width, height) == (FIGSIZE[0] * DPI, FIGSIZE[1] * DPI)


def test_panels_without_their_tags_say_no_data_instead_of_failing(tmp_path):
    write_log(tmp_path / "tb" / "ppo_1", {100: {"time/fps": 1000.0}})
    assert plot_run(tmp_path, tmp_path / "curves.png").read_bytes().startswith(PNG_MAGIC)

    only_losses = {"train/entropy_loss": [(100, -1.5)], "train/value_loss": [(100, 4.0)]}
    fig = draw(only_losses, "losses only")
    said = [text.get_text() for ax in fig.axes for text in ax.texts]
    assert len(said) == 3 and all(text.startswith("no data") for text in said)
    assert "eval/vs_*/win_rate" in said[0]


def test_a_run_dir_without_event_files_is_a_value_error_naming_it(tmp_path):
    for run in (tmp_path, tmp_path / "tb" / "ppo_1"):  # nothing at all; an empty log folder
        run.mkdir(parents=True, exist_ok=True)
        with pytest.raises(ValueError, match="no TensorBoard logs") as exc:
            read_scalars(tmp_path)
        assert str(tmp_path) in str(exc.value) and "events.out.tfevents" in str(exc.value)


def test_a_missing_run_dir_is_a_value_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match=f"{tmp_path / 'nope'} does not exist"):
        plot_run(tmp_path / "nope", tmp_path / "curves.png")


def test_moving_average_is_trailing_and_keeps_every_point():
    assert np.allclose(moving_average([0, 2, 4, 6], window=2), [0, 1, 3, 5])
    assert np.allclose(moving_average([1.0], window=10), [1.0])


def test_cli_curves_writes_the_default_png_and_prints_its_path(run_dir, capsys):
    assert main(["curves", str(run_dir)]) == 0
    assert (run_dir / "curves.png").read_bytes().startswith(PNG_MAGIC)
    assert str(run_dir / "curves.png") in capsys.readouterr().out


def test_crates_curves_writes_the_png_where_out_says(run_dir, tmp_path, capsys):
    out = tmp_path / "elsewhere" / "plot.png"
    assert main(["curves", str(run_dir), "--out", str(out)]) == 0
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_crates_curves_says_the_file_it_wrote(run_dir, tmp_path, capsys):
    """``--out plot``: matplotlib writes ``plot.png``, and that is the file named (``plot``
    was); another suffix is its format."""
    assert main(["curves", str(run_dir), "--out", str(tmp_path / "plot")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'plot.png'}\n"
    assert (tmp_path / "plot.png").read_bytes().startswith(PNG_MAGIC)
    assert not (tmp_path / "plot").exists()
    assert main(["curves", str(run_dir), "--out", str(tmp_path / "plot.svg")]) == 0
    assert (tmp_path / "plot.svg").read_text().startswith("<?xml")


def test_cli_curves_bad_run_dir_is_one_line_and_exit_code_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["curves", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("crates curves: error:") and str(tmp_path) in err[0]
