"""A person at the keyboard takes one seat against agents (``crates play``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents import Agent, Table, make_agent
from crates_env.actions import action_name, parse_action
from crates_env.cards import parse_card, pretty
from crates_env.env import play_seats, raw_env, render_table
from crates_env.game import Decision
from crates_env.render.table import hand_result, table_snapshot
from train.evaluation.games import seed_of


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
    table = Table.from_env(env)
    agents = seat_agents(table, seat_specs(table.num_players, seat, opponents))
    env.reset(seed=seed)
    g = env.game
    shown = 0

    def choose(to_play: int, obs: dict) -> int:
        nonlocal shown
        shown = _show_hands_finished(env, shown, write)
        if to_play == seat:
            write(render_table(g))
            return _ask(env, seat, read, write)
        return agents[to_play].act(obs["observation"], obs["action_mask"], g)

    play_seats(env, choose)
    _show_hands_finished(env, shown, write)
    write(render_table(g))  # its last line: who won, by how much
    winners = g.winners()
    won = env.rules.team_of(seat) in winners
    write(f"you (p{seat}) " + ("lose" if not won else "win" if len(winners) == 1 else "tie"))
    return list(g.scores)


def seat_specs(num_players: int, seat: int, opponents: Sequence[str]) -> dict[int, str]:
    """The agent of every seat but the person's (``seat``), by name: one name for all of them,
    or one per seat in seat order; ValueError for a seat off the table or a wrong count."""
    if not 0 <= seat < num_players:
        raise ValueError(f"--seat must be 0..{num_players - 1}, not {seat}")
    others = [s for s in range(num_players) if s != seat]
    if len(opponents) not in (1, len(others)):
        raise ValueError(f"give one opponent for all seats or one for each of {len(others)} seats")
    names = opponents if len(opponents) > 1 else list(opponents) * len(others)
    return dict(zip(others, names, strict=True))


def seat_agents(table: Table, specs: dict[int, str], game: int | None = None) -> dict[int, Agent]:
    """The agents ``specs`` name (``make_agent``), each reset for a new game and seeded by its
    seat (and by ``game``, for a server dealing many)."""
    agents = {}
    for seat, spec in specs.items():
        seed = seat if game is None else seed_of(game, seat)
        agents[seat] = make_agent(spec, table, seed=seed)
        agents[seat].reset()
    return agents


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
    snap = table_snapshot(g)
    for row, log in zip(snap.hands[shown:], g.hand_logs[shown:], strict=True):
        write("\n".join(str(event) for event in log[-8:]))
        write(f"hand over ({row.ended_by}): {hand_result(snap, row)}")
    return len(g.results)
