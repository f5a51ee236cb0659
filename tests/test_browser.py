"""The replay page in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
playwright's Python package, never a browser it downloads.

For one short game of every preset (the game ``crates eval`` plays): the page loads with no
console error, the arrow keys, Home, End and the slider step it, its last step shows the
scores the engine reported, and W shows and hides what the agent to play weighed. Without a
browser the test skips and says what is missing; CI (``.ci/run``) installs both and sets
``CRATES_BROWSER_TESTS=required``, so there it fails instead of skipping (the ``browser``
fixture, tests/conftest.py).
"""

from __future__ import annotations

import pytest

from crates_env.actions import action_name
from crates_env.render import write_page
from train.evaluation import EvalConfig
from train.evaluation.replays import replay_game

from .pages import watched_page

# one short game of each preset: the Crates family on a 2-then-1-card schedule; crazy_eights and
# zimbabwe as they are, between two players
GAMES = [
    ("crates", 4, {"deal_schedule": [2, 1]}),
    ("chicago1970", 3, {"deal_schedule": [2, 1]}),
    ("kreights", 4, {"deal_schedule": [2, 1]}),
    ("craits", 5, {"deal_schedule": [2, 1]}),
    ("creights", 3, {"deal_schedule": [2, 1]}),
    ("crazy_eights", 2, {}),
    ("zimbabwe", 2, {}),
]


@pytest.mark.parametrize(("preset", "n", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_the_page_of_every_preset_steps_and_ends_on_the_engines_scores(
    browser, tmp_path, preset, n, options
):
    config = EvalConfig(
        agents=("heuristic", "random"), preset=preset, num_players=n, deals=1, options=options
    )
    replay, record = replay_game(config)
    page_file = write_page(replay, tmp_path / f"{preset}.html")
    steps = len(replay.steps)
    assert steps >= 5

    page = watched_page(browser, 1300, 900)
    page.goto(page_file.as_uri())

    def where() -> str:
        return page.inner_text("#where")

    assert where() == f"step 1 / {steps}"
    assert page.locator("#layer use").count() > 0  # cards drawn
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert where() == f"step 4 / {steps}"
    page.keyboard.press("ArrowLeft")
    assert where() == f"step 3 / {steps}"
    page.locator("#slider").fill("1")
    assert where() == f"step 2 / {steps}"
    page.keyboard.press("End")
    assert where() == f"step {steps} / {steps}"
    assert page.text_content('[data-role="status"]') in ("game over", "game stopped by a guard")
    sides = len(record.final_scores)
    shown = [int(page.text_content(f'[data-role="total-{t}"]')) for t in range(sides)]
    assert shown == record.final_scores
    page.keyboard.press("ArrowRight")  # nothing after the end
    assert where() == f"step {steps} / {steps}"
    page.keyboard.press("Home")
    assert where() == f"step 1 / {steps}"
    page.keyboard.press("w")  # why: scripted agents show their move only
    first = replay.steps[0]
    said = f"p{first.to_play} · {first.seats[first.to_play].name} \u2192 {action_name(first.move)}"
    assert page.inner_text("#explain").splitlines()[0] == said
    assert "its move is all it shows (a scripted agent, or a person)" in page.inner_text("#explain")
    page.keyboard.press("w")
    assert page.locator("#explain").is_hidden()
    numbers = [step.hand_number for step in replay.steps]
    second_hand = numbers.index(numbers[0] + 1) if numbers[-1] > numbers[0] else steps - 1
    page.keyboard.press("PageDown")
    assert where() == f"step {second_hand + 1} / {steps}"
    page.keyboard.press("PageUp")
    assert where() == f"step 1 / {steps}"
    page.click("#last")
    assert where() == f"step {steps} / {steps}"
    page.close()
    assert page.problems == []
