"""The served table (``crates serve``): how long the server takes to answer a move, and the
README's picture of it.

Run from the repository root (with the extra ``[web]``, and ``[browser]`` for the picture):

    python benchmarks/served_table.py
    python benchmarks/served_table.py --opponents heuristic shipped --games 3
    python benchmarks/served_table.py --screenshot docs/table.png   # the README's picture

For each opponent (every other seat of 4-player crates, the person at seat 0 playing its first
legal move), the time from a move's request to its answer through the app (Starlette's
TestClient, no network): the person's move, the agents' moves up to the person's next decision,
what the shipped network says of that decision, and the table drawn for each step; medians over
every move of the first hand of ``--games`` games, and the answer's size. The page shows the
agents' moves at ``--pace`` seconds each on top of this. ``--screenshot`` draws a served table
in Debian's chromium (playwright) a few moves into a hand, the explain panel open.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from train.cli.seated import ServeConfig, Tables
from train.cli.serve import build_app, listen, web_server


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--opponents", nargs="+", default=["heuristic", "shipped", "search:base=shipped"]
    )
    parser.add_argument("--games", type=int, default=2, help="games per opponent (default 2)")
    parser.add_argument("--screenshot", type=Path, default=None, help="PNG of the table to write")
    return parser.parse_args(argv)


def config(opponent: str) -> ServeConfig:
    return ServeConfig("crates", 4, 0, dict.fromkeys((1, 2, 3), opponent), pace=0)


def first_legal(state: dict) -> int:
    cards = [c["action"] for c in state["hand"] if c["legal"]]
    return (cards or [m["action"] for m in state["moves"]])[0]


def answers(opponents: list[str], games: int) -> None:
    from starlette.testclient import TestClient

    print(f"{'opponents':<22}{'moves':>7}{'median ms':>11}{'max ms':>9}{'answer KB':>11}")
    for opponent in opponents:
        http = TestClient(build_app(Tables(config(opponent))), base_url="http://127.0.0.1")
        times, sizes = [], []
        for _ in range(games):
            state = http.post("/api/games").json()
            while not state["hands"] and not state["over"]:
                move = {"decision": state["decision"], "action": first_legal(state)}
                start = time.perf_counter()
                answer = http.post(f"/api/games/{state['game']}/move", json=move)
                times.append(time.perf_counter() - start)
                sizes.append(len(answer.content))
                state = answer.json()
        print(
            f"{opponent:<22}{len(times):>7}{statistics.median(times) * 1e3:>11.0f}"
            f"{max(times) * 1e3:>9.0f}{statistics.median(sizes) / 1e3:>11.1f}"
        )


def screenshot(path: Path) -> None:
    from playwright.sync_api import sync_playwright

    tables = Tables(config("shipped"))
    listener = listen("127.0.0.1", 0)
    server = web_server(tables, "127.0.0.1")
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 900}, device_scale_factor=0.75)
        page.goto(url)
        ready = 'body[data-busy="0"]'
        page.wait_for_selector(ready)
        for _ in range(3):  # a few moves in, the hand still full
            legal = page.locator(".card.legal")
            (legal if legal.count() else page.locator(".move")).first.click()
            page.wait_for_selector(ready)
        page.check("#why")
        page.screenshot(path=str(path), full_page=True)
        browser.close()
    server.should_exit = True
    thread.join(10)
    print(f"wrote {path}, {path.stat().st_size} bytes")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.screenshot:
        screenshot(args.screenshot)
        return
    answers(args.opponents, args.games)


if __name__ == "__main__":
    main()
