"""A person at the keyboard takes one seat against agents (``crates play``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents import Table, decide, make_agent
from crates_env.actions import action_name, parse_action
from crates_env.cards import parse_card, pretty
from crates_env.env import hand_summary, play_seats, raw_env, render_table
from crates_env.game import Decision


def play_in_terminal(
    seat: int,
    opponents: Sequence[str],
    preset: str = "crates",
    num_players: int = 4,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> list[int]:
    """Play one game; return the final scores per side. ``read``/``write`` are for tests."""
    env = raw_env(preset=preset, num_players=num_players, **(options or {}))
    n = env.rules.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1}, not {seat}")
    others = [s for s in range(n) if s != seat]
    if len(opponents) not in (1, len(others)):
        raise ValueError(f"give one opponent for all seats or one for each of {len(others)} seats")
    table = Table.from_env(env)
    specs = opponents if len(opponents) > 1 else list(opponents) * len(others)
    agents = {s: make_agent(spec, table, seed=s) for s, spec in zip(others, specs, strict=True)}
    env.reset(seed=seed)
    g = env.game
    shown = 0

    def choose(to_play: int, obs: dict) -> int:
        nonlocal shown
        shown = _show_hands_finished(env, shown, write)
        if to_play == seat:
            write(render_table(g))
            return _ask(env, seat, read, write)
        return decide(agents[to_play], env, obs["observation"], obs["action_mask"])

    play_seats(env, choose)
    _show_hands_finished(env, shown, write)
    write(render_table(g))
    winners = g.winners()
    won = env.rules.team_of(seat) in winners
    write(f"you (p{seat}) " + ("lose" if not won else "win" if len(winners) == 1 else "tie"))
    return list(g.scores)


def _ask(env: raw_env, seat: int, read, write) -> int:
    g = env.game
    legal = g.legal_actions()
    if g.decision is Decision.STARTER_SUIT:
        write("You turned a wild starter: name the suit before looking at your hand.")
    else:
        write("your hand: " + " ".join(pretty(parse_card(c)) for c in g.hand(seat)))
    for i, a in enumerate(legal, 1):
        write(f"  {i}. {action_name(a)}")
    while True:
        try:
            answer = read("your move (number or name, e.g. 'play 8S'): ").strip()
        except EOFError:  # stdin closed: nobody is there to play
            raise ValueError("no more input: the game needs your moves on stdin") from None
        action = _parse_answer(answer, legal)
        if action is not None:
            return action
        write(f"'{answer}' is not one of the moves listed; try again.")


def _parse_answer(answer: str, legal: list[int]) -> int | None:
    if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(legal):
        return legal[int(answer) - 1]
    for text in (answer, f"play {answer}", f"suit {answer}"):
        try:
            action = parse_action(text)
        except ValueError:
            continue
        if action in legal:
            return action
    return None


def _show_hands_finished(env: raw_env, shown: int, write) -> int:
    g = env.game
    for result, log in zip(g.results[shown:], g.hand_logs[shown:], strict=True):
        summary = hand_summary(result, env.rules)
        write("\n".join(str(event) for event in log[-8:]))
        write(
            f"hand {result.hand_index + 1} over ({result.ended_by}): points per seat "
            + ", ".join(f"p{s} {p}" for s, p in enumerate(summary["points"]))
        )
    return len(g.results)
