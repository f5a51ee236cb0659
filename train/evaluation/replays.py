"""Replays of an evaluation's games: the very games ``crates eval`` plays (the same seeding, the
same agents in the same seats), recorded step by step and written as HTML pages
(``crates_env.render``).

A game is named by its deal and lineup, as in ``tournament.game_tasks``: ``crates replay --seed S``
shows the first game that ``crates eval --seed S`` plays (deal 0, lineup 0), and
``crates eval --replays K`` writes the pages of its first K games. Playing a game again gives the
same game, so the pages are made after the evaluation, one game at a time on the reference
engine (the recorder reads its game), whichever engine played the evaluation's games.

Each step keeps what the agent to play weighed (``Agent.explain``: a network's probabilities
and value estimate, the page's "why" toggle), asked of a fresh agent of the same name at the
same seat; ``search=True`` (``crates replay --explain``) adds SearchAgent's margins, which cost a
search at every decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agents import Table
from crates_env.game import Game
from crates_env.observation import Observer
from crates_env.payouts import legal_mask
from crates_env.render import Recorder, Replay, write_page

from .games import EvalConfig, GameRecord, lineups, play_games
from .report import _short
from .tournament import game_tasks, validate


def replay_game(
    config: EvalConfig, deal: int = 0, lineup: int = 0, search: bool = False
) -> tuple[Replay, GameRecord]:
    """Game ``(deal, lineup)`` of ``config``'s evaluation, recorded, and its record (``search``:
    with SearchAgent's margins at its decisions): dealt from the deal's own seed, whatever deals
    come before it."""
    validate(config)
    seatings = lineups(len(config.agents), config.num_players)
    if not 0 <= deal < config.deals:
        raise ValueError(f"deal must be 0..{config.deals - 1}, not {deal}")
    if not 0 <= lineup < len(seatings):
        raise ValueError(
            f"lineup must be 0..{len(seatings) - 1} ({len(seatings)} seatings), not {lineup}"
        )
    return _replay(config, (deal, lineup, seatings[lineup]), search)


Task = tuple[int, int, tuple[int, ...]]  # deal, lineup index, lineup (tournament.game_tasks)


def _replay(config: EvalConfig, task: Task, search: bool = False) -> tuple[Replay, GameRecord]:
    deal, index, seating = task
    names = [seat_names(config.agents)[a] for a in seating]
    recorder = Recorder(names)
    table = Table.from_rules(config.preset, config.num_players, **config.options)
    observer = Observer(table.rules)
    # agents of their own to explain the moves: asking those that play would change their
    # random streams, and with them the game
    explainers = [config.agent(config.agents[a], table, seed=s) for s, a in enumerate(seating)]

    def watch(game: Game, action: int) -> None:
        observation, mask = observer.encode(game.view(game.to_play)), legal_mask(game)
        said = explainers[game.to_play].explain(observation, mask, game=game, search=search)
        recorder.record(game, action, said and said.as_dict())

    (record,) = play_games(config, [task], watch=watch)
    options = "".join(f" --rule {k}={v}" for k, v in config.options.items())
    options += " --other-table" if config.other_table else ""
    agents = " ".join(config.agents)
    about = (
        "seats: " + ", ".join(f"p{s} {name}" for s, name in enumerate(names)),
        f"the game crates eval --seed {config.seed} plays at deal {deal}, lineup {index}: "
        f"crates replay --agents {agents} --preset {config.preset} --players "
        f"{config.num_players}{options} --seed {config.seed} --deal {deal} --lineup {index}",
    )
    title = f"{config.preset}, {config.num_players} players: " + " v ".join(dict.fromkeys(names))
    return recorder.finish(title, about), record


def seat_names(agents: Sequence[str]) -> list[str]:
    """Names short enough for a seat: a checkpoint by its file's stem while that tells the
    agents apart, else as the evaluation's table names it."""
    names = [_short(a) for a in agents]
    stems = [Path(n).stem if n.endswith(".zip") else n for n in names]
    return stems if len(set(stems)) == len(set(names)) else names


def write_replays(config: EvalConfig, folder: Path, count: int) -> list[Path]:
    """The pages of the first ``count`` games of ``config``'s evaluation, in ``folder``
    (``deal<d>-lineup<l>.html``)."""
    tasks = game_tasks(config)
    if not 0 <= count <= len(tasks):
        raise ValueError(f"replays must be 0..{len(tasks)} (the evaluation's games), not {count}")
    pages = []
    for task in tasks[:count]:
        replay, _ = _replay(config, task)
        pages.append(write_page(replay, folder / f"deal{task[0]}-lineup{task[1]}.html"))
    return pages
