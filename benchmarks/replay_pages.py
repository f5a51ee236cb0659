"""Replay pages and frames: how big a page is and how long a replay takes to write, per preset,
and how long the environment takes to draw one rgb_array frame.

Run from the repository root:

    python benchmarks/replay_pages.py
    python benchmarks/replay_pages.py --agents heuristic greedy --deals 5
    python benchmarks/replay_pages.py --screenshot docs/replay.png   # the README's picture

Each game is the one ``crates replay --agents A B --preset P --players N --deal d`` writes (the
full default game of the preset, with its usual player count). The time to write a replay is
playing the game, recording it and writing its page, as ``crates replay`` does after its agents
are loaded; medians over the deals. ``--screenshot`` draws the first deal's page of 4-player
crates in Debian's chromium (playwright) at a step in the middle of a hand.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crates_env import crates_v0
from crates_env.render import write_page
from train.evaluation import EvalConfig
from train.evaluation.replays import replay_game

TABLES = [
    ("crates", 4),
    ("chicago1970", 4),
    ("kreights", 4),
    ("craits", 6),
    ("creights", 4),
    ("crazy_eights", 4),
    ("zimbabwe", 4),
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs=2, default=["heuristic", "greedy"])
    parser.add_argument("--deals", type=int, default=3, help="games per preset (default 3)")
    parser.add_argument("--frames", type=int, default=200, help="frames to time (default 200)")
    parser.add_argument("--screenshot", type=Path, default=None, help="PNG of a page to write")
    return parser.parse_args(argv)


def pages(args: argparse.Namespace, folder: Path) -> None:
    print(f"{'preset':<14}{'players':>8}{'steps':>8}{'page MB':>9}{'KB/step':>9}{'write s':>9}")
    for preset, n in TABLES:
        config = EvalConfig(tuple(args.agents), preset, n, deals=args.deals)
        replay_game(config)  # agents loaded, the engine warm
        steps, sizes, seconds = [], [], []
        for deal in range(args.deals):
            start = time.perf_counter()
            replay, _ = replay_game(config, deal)
            path = write_page(replay, folder / f"{preset}-{deal}.html")
            seconds.append(time.perf_counter() - start)
            steps.append(len(replay.steps))
            sizes.append(path.stat().st_size)
        step, size = statistics.median(steps), statistics.median(sizes)
        print(
            f"{preset:<14}{n:>8}{step:>8.0f}{size / 1e6:>9.2f}{size / step / 1e3:>9.2f}"
            f"{statistics.median(seconds):>9.2f}"
        )


def frames(count: int) -> None:
    env = crates_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    times = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
        start = time.perf_counter()
        picture = env.render()
        times.append(time.perf_counter() - start)
        if len(times) == count:
            break
    height, width, _ = picture.shape
    print(
        f"rgb_array frame of 4-player crates: {width} x {height}, median "
        f"{statistics.median(times) * 1e3:.1f} ms over {len(times)} frames"
    )


def screenshot(path: Path, folder: Path) -> None:
    from playwright.sync_api import sync_playwright

    config = EvalConfig(("heuristic", "greedy"), "crates", 4, deals=1, seed=5)
    replay, _ = replay_game(config)
    # a step with a pressure or a count is the most telling; else the middle of the third hand
    wanted = [i for i, s in enumerate(replay.steps) if s.count and s.hand_number == 3]
    step = wanted[0] if wanted else len(replay.steps) // 5
    page_file = write_page(replay, folder / "shot.html")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 760}, device_scale_factor=0.75)
        page.goto(page_file.as_uri())
        page.locator("#slider").fill(str(step))
        page.screenshot(path=str(path), full_page=True)
        browser.close()
    print(f"wrote {path} (step {step + 1} of {len(replay.steps)}), {path.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.screenshot:
            screenshot(args.screenshot, folder)
            return
        pages(args, folder)
        frames(args.frames)


if __name__ == "__main__":
    main()
