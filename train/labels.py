"""Expert iteration's labels: what the search says of the positions of many games, on disk.

A labelling run plays games of a searching expert (``SearchAgent``) against an opponent and,
at every decision of every seat that has a real choice, keeps what the seat saw, what it could
do, the base policy's move and, where the search looks (the stock short enough), the search's
verdict on every legal move: its mean margin over the re-deals and its gain over the base move
with the gain's standard error. The expert's side plays the search's move, the other side the
opponent's; both sides' positions are labelled (the opponent's ones show the network positions
it meets when it plays a HeuristicAgent-like game). The discounted return that followed each
decision is kept too, in the training reward's units, for the critic.

The games are split into *chunks* of a few games, each seeded by the plan and its index alone
and written atomically to its own file: a long run can be split over processes, sessions and
machines, killed and resumed (finished chunks are skipped), and its chunks pooled. Every chunk
carries the plan's settings; pooling refuses a chunk labelled under other settings.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents import SearchAgent, Table, make_agent, search_settings
from agents.search import Verdict
from agents.shipped import SHIPPED, shipped_network
from crates_env.actions import NUM_ACTIONS
from crates_env.engine_choice import rules_of_env
from crates_env.env import raw_env
from crates_env.processes import one_thread_worker
from crates_env.rules import Ruleset
from train.files import load_arrays, save_arrays
from train.workers import RAY_RETRIES, WorkersFailed, ray_session, torch_threads

CHUNK = "chunk_{:05d}.npz"


@dataclass(frozen=True)
class LabelPlan:
    """Which games to label: ``games`` per chunk on the table of ``env`` (the training
    environment's keyword arguments: its rewards are the returns' units), the expert
    ``search`` (an agent spec, ``"search:samples=16,stock_max=10,z=1"``) against ``opponent``;
    returns discounted by ``gamma``; chunk ``i``'s games seeded from ``(seed, i)``. A
    verdict's re-deals are the search's own, deepened where it deepens (``SearchAgent``'s
    ``deepen`` and ``deepen_at``)."""

    env: dict[str, Any]
    search: str = "search:samples=16,stock_max=10,z=1"
    opponent: str = "heuristic"
    games: int = 8
    gamma: float = 0.99
    seed: int = 0

    def rules(self) -> Ruleset:
        """The table's rules."""
        return rules_of_env(self.env)

    def settings(self) -> dict[str, Any]:
        """What the labels depend on, for the chunk files: a base network by its contents,
        not its name (``shipped`` and a copy of that file label alike)."""
        settings = json.loads(json.dumps(asdict(self), sort_keys=True))
        name, _, spec = self.search.partition(":")
        base = search_settings(spec).get("base", "heuristic")
        if base != "heuristic":
            path = shipped_network(self.rules()) if base == SHIPPED else Path(str(base))
            if not path.is_file():
                raise ValueError(f"the search's base network {path} does not exist")
            settings["base_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            rest = [item for item in spec.split(",") if item and not item.startswith("base=")]
            settings["search"] = f"{name}:{','.join(rest)}"
        return settings


@dataclass
class Labels:
    """Labelled decisions (rows; forced moves are not kept) and the games they come from."""

    observations: np.ndarray  # (n, obs_size) float32, the seat's public observation
    masks: np.ndarray  # (n, NUM_ACTIONS) bool
    base: np.ndarray  # (n,) int16: the base policy's move
    played: np.ndarray  # (n,) int16: the move made at the table
    redeals: np.ndarray  # (n,) int16: re-deals behind the search's verdict (0: not searched)
    values: (
        np.ndarray
    )  # (n, NUM_ACTIONS) float64 (exactly as searched): mean margin of each legal move (NaN: none)
    gains: np.ndarray  # (n, NUM_ACTIONS): mean gain over the base move (NaN: none)
    gain_se: np.ndarray  # (n, NUM_ACTIONS): standard error of that gain (NaN: none)
    returns: np.ndarray  # (n,) float32: discounted return that followed, in reward units
    seat: np.ndarray  # (n,) int8
    game: np.ndarray  # (n,) int32: the game's index in its chunk
    expert: np.ndarray  # (n,) bool: the seat played the expert's moves
    stock: np.ndarray  # (n,) int16: cards in the stock at the decision
    hand: np.ndarray  # (n,) int16: the hand's index in its game
    points: np.ndarray  # (games, 2) the expert's side's and the opponents' final scores

    def __len__(self) -> int:
        return len(self.base)

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def searched(self) -> np.ndarray:
        """Whether the search looked at each decision."""
        return self.redeals > 0

    def target(self, z: float, redeals: int = 1) -> np.ndarray:
        """The move to learn at each row: the search's choice where it searched with at least
        ``redeals`` re-deals (the base move unless the best-looking move beats it by ``z``
        standard errors), the base move elsewhere."""
        out = self.base.astype(np.int64)
        for i in np.flatnonzero(self.redeals >= max(redeals, 1)):
            legal = np.flatnonzero(self.masks[i])
            base = int(np.flatnonzero(legal == self.base[i])[0])
            verdict = Verdict(
                legal, self.values[i, legal], self.gains[i, legal], self.gain_se[i, legal], base
            )
            out[i] = legal[verdict.choice(z)]
        return out

    def save(self, path: Path, settings: dict) -> None:
        """Write the labels and their settings atomically (a kill never leaves half a file)."""
        save_arrays(path, {f.name: getattr(self, f.name) for f in fields(self)}, settings)

    @classmethod
    def load(cls, path: Path, settings: dict | None = None) -> Labels:
        """Read a chunk; ValueError if it is not one or (with ``settings``) was labelled
        under other settings, naming them."""
        return cls(**load_arrays(path, [f.name for f in fields(cls)], settings, "a labels chunk"))

    @classmethod
    def concatenate(cls, parts: list[Labels]) -> Labels:
        """Parts joined in order; game indices renumbered so that each game keeps its own."""
        offsets = np.cumsum([0] + [p.games for p in parts[:-1]])
        joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        joined["game"] = np.concatenate([p.game + o for p, o in zip(parts, offsets, strict=True)])
        return cls(**joined)


def chunk_path(folder: Path, index: int) -> Path:
    return folder / CHUNK.format(index)


def label_chunk(plan: LabelPlan, index: int) -> Labels:
    """Play and label chunk ``index``'s games (the expert's side alternates game by game).

    The games go on side by side: each is played on to its next searched decision, and the
    decisions waiting in every game are searched together (``SearchAgent.margins_of``)."""
    seeds = np.random.SeedSequence([plan.seed, index]).generate_state(plan.games + 2)
    games = []
    for i in range(plan.games):
        env = raw_env(**plan.env)
        env.reset(seed=int(seeds[i]))
        games.append(_GameLabeller(env, expert_side=i % 2))
    table = Table.from_env(games[0].env)
    expert = make_agent(plan.search, table, seed=int(seeds[-2]))
    if not isinstance(expert, SearchAgent):
        raise ValueError(f"the expert must be a search agent (search:...), not {plan.search!r}")
    opponent = make_agent(plan.opponent, table, seed=int(seeds[-1]))
    while waiting := [game for game in games if game.advance(expert, opponent)]:
        decisions = [(game.env, game.legal) for game in waiting]
        bases = [game.row["base"] for game in waiting]
        margins = expert.deepened_margins(decisions, bases)
        for game, margin in zip(waiting, margins, strict=True):
            game.decide(expert, margin)
    return Labels.concatenate([game.labels(plan.gamma, table.obs_size) for game in games])


class _GameLabeller:
    """One game being played and labelled: its rows so far and the decision waiting."""

    def __init__(self, env: raw_env, expert_side: int) -> None:
        self.env, self.expert_side = env, expert_side
        self.rows: list[dict[str, Any]] = []
        self.rewards: list[float] = []  # per row: what its seat received before its next decision
        self.seat_rows: dict[int, list[int]] = {s: [] for s in range(env.rules.num_players)}
        self.row: dict[str, Any] = {}
        self.legal = np.zeros(0, dtype=np.int64)

    def advance(self, expert: SearchAgent, opponent) -> bool:
        """Play on until a decision the expert searches (True: it waits in ``row``) or the
        game's end (False)."""
        env, g = self.env, self.env.game
        while not g.game_over:
            seat = g.to_play
            seen = env.observe(env.possible_agents[seat])
            observation, mask = seen["observation"], seen["action_mask"]
            self.legal = np.flatnonzero(mask)
            if len(self.legal) == 1:  # forced: nothing to learn
                self._step(int(self.legal[0]))
                continue
            is_expert = env.rules.team_of(seat) == self.expert_side
            base = int(expert.base_policy.act(observation, mask))
            self.row = {
                "observation": observation,
                "mask": mask,
                "base": base,
                "seat": seat,
                "expert": is_expert,
                "stock": g.view(seat).stock_size,
                "hand": g.hand_index,
                "verdict": None,
                "played": base if is_expert else int(opponent.act(observation, mask)),
            }
            if expert.searches(env, self.legal):
                return True
            self._record_and_play()
        return False

    def decide(self, expert: SearchAgent, margins: np.ndarray) -> None:
        """The search's margins (moves x re-deals) for the waiting decision, and its verdict;
        the expert's side plays its choice."""
        verdict = Verdict.of(margins, self.legal, self.row["base"])
        self.row["verdict"], self.row["redeals"] = verdict, margins.shape[1]
        if self.row["expert"]:
            self.row["played"] = int(self.legal[verdict.choice(expert.z)])
        self._record_and_play()

    def _record_and_play(self) -> None:
        self.seat_rows[self.row["seat"]].append(len(self.rows))
        self.rows.append(self.row)
        self.rewards.append(0.0)
        self._step(self.row["played"])

    def _step(self, action: int) -> None:
        """Play ``action``; a seat's rewards go to its latest row (the decisions before them)."""
        self.env.step(action)
        for s, name in enumerate(self.env.possible_agents):
            if self.env.rewards[name] and self.seat_rows[s]:
                self.rewards[self.seat_rows[s][-1]] += self.env.rewards[name]

    def labels(self, gamma: float, obs_size: int) -> Labels:
        returns = np.zeros(len(self.rows), dtype=np.float32)
        for indices in self.seat_rows.values():
            ret = 0.0
            for i in reversed(indices):
                ret = self.rewards[i] + gamma * ret
                returns[i] = ret
        return _labels_of(self.rows, returns, self.env.game, self.expert_side, obs_size)


def _labels_of(rows, returns, g, expert_side: int, obs_size: int) -> Labels:
    n = len(rows)  # 0 for a game whose every move was forced
    values = np.full((n, NUM_ACTIONS), np.nan)
    gains, gain_se = values.copy(), values.copy()
    redeals = np.zeros(n, dtype=np.int16)
    for i, row in enumerate(rows):
        verdict = row["verdict"]
        if verdict is not None:
            redeals[i] = row["redeals"]
            values[i, verdict.legal] = verdict.values
            gains[i, verdict.legal] = verdict.gains
            gain_se[i, verdict.legal] = verdict.gain_se
    scores = list(g.scores)
    others = [s for t, s in enumerate(scores) if t != expert_side]
    return Labels(
        observations=np.array([r["observation"] for r in rows], dtype=np.float32).reshape(
            n, obs_size
        ),
        masks=np.array([r["mask"] for r in rows], dtype=bool).reshape(n, NUM_ACTIONS),
        base=np.array([r["base"] for r in rows], dtype=np.int16),
        played=np.array([r["played"] for r in rows], dtype=np.int16),
        redeals=redeals,
        values=values,
        gains=gains,
        gain_se=gain_se,
        returns=returns,
        seat=np.array([r["seat"] for r in rows], dtype=np.int8),
        game=np.zeros(n, dtype=np.int32),
        expert=np.array([r["expert"] for r in rows], dtype=bool),
        stock=np.array([r["stock"] for r in rows], dtype=np.int16),
        hand=np.array([r["hand"] for r in rows], dtype=np.int16),
        points=np.array([[scores[expert_side], float(np.mean(others))]], dtype=np.float64),
    )


# ---------------------------------------------------------------------- runs of chunks
def pending(folder: Path, chunks: Iterable[int]) -> list[int]:
    """The chunks of ``chunks`` not yet written to ``folder``."""
    return [i for i in chunks if not chunk_path(folder, i).exists()]


def _label_and_save(job: tuple[LabelPlan, int, Path, dict]) -> int:
    plan, index, folder, settings = job
    labels = label_chunk(plan, index)
    labels.save(chunk_path(folder, index), settings)
    return len(labels)


def _label_task(plan: LabelPlan, index: int, cwd: str) -> Labels:
    """A Ray task: chunk ``index``'s labels (a base network's relative path read from the
    driver's folder where the node has it); the driver writes the file."""
    if Path(cwd).is_dir():
        os.chdir(cwd)
    with torch_threads(1):
        return label_chunk(plan, index)


def _init_labeller() -> None:
    one_thread_worker()
    torch.set_num_threads(1)  # a search's batches are small: see torch_threads


def label(
    plan: LabelPlan,
    folder: Path,
    chunks: Iterable[int],
    workers: int = 1,
    ray: str | None = None,
) -> Iterator[int]:
    """Label the chunks of ``chunks`` missing from ``folder`` (over ``workers`` processes, or
    as Ray tasks on the cluster at ``ray``, ``LOCAL_RAY`` for RAY_ADDRESS's or a local one);
    yields each finished chunk's number of rows, as it lands. A chunk is seeded by its index
    alone and written whole, so a run stopped anywhere keeps every chunk it finished, the next
    labels only the missing ones, and the files are the same bytes wherever they were made."""
    settings = plan.settings()
    folder.mkdir(parents=True, exist_ok=True)
    for labelled in _chunks_in(folder)[:1]:  # a folder holds one plan's chunks
        load_arrays(labelled, [], settings, "a labels chunk", "; label them in another folder")
    jobs = [(plan, i, folder, settings) for i in pending(folder, chunks)]
    workers = max(1, min(workers, len(jobs)))  # no more processes than chunks to label
    if ray is not None:
        yield from _label_on_ray(jobs, ray, workers)
        return
    if workers <= 1:
        with torch_threads(1):
            for job in jobs:
                yield _label_and_save(job)
        return
    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_labeller) as pool:
        yield from pool.imap_unordered(_label_and_save, jobs)


def _label_on_ray(jobs: list, address: str, workers: int) -> Iterator[int]:
    """``label``'s jobs as Ray tasks, each chunk written here as it comes back."""
    with ray_session(address, workers) as ray:
        task = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(_label_task)
        refs = {
            task.remote(plan, index, os.getcwd()): job for job in jobs for plan, index in [job[:2]]
        }
        pending_refs = list(refs)
        try:
            while pending_refs:
                ready, pending_refs = ray.wait(pending_refs, num_returns=1)
                try:
                    labels = ray.get(ready[0])
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                    raise WorkersFailed(
                        f"a Ray worker labelling a chunk died ({type(exc).__name__}), and so "
                        f"did the {RAY_RETRIES} retries of its task: the finished chunks are "
                        "kept; label again to do the rest"
                    ) from None
                _, index, folder, settings = refs[ready[0]]
                labels.save(chunk_path(folder, index), settings)
                yield len(labels)
        finally:
            for ref in pending_refs:  # stopped early: no task goes on labelling for nobody
                ray.cancel(ref, force=True)


def _chunks_in(folder: Path) -> list[Path]:
    """The finished chunk files of ``folder``, in chunk order."""
    return [p for p in sorted(folder.glob("chunk_*.npz")) if not p.name.endswith(".tmp.npz")]


def pool_labels(
    folders: Iterable[Path], settings: dict | None = None, chunks: Iterable[int] | None = None
) -> Labels:
    """Every chunk of ``folders`` joined (in folder and chunk order), or only the chunks
    numbered ``chunks`` of each (a run learns what its config names, whatever else a shared
    folder holds); ValueError if none is there, one of ``chunks`` is missing, or a chunk was
    labelled under settings other than ``settings``."""
    folders = [Path(folder) for folder in folders]
    if chunks is None:
        paths = [p for folder in folders for p in _chunks_in(folder)]
    else:
        chunks = list(chunks)
        for folder in folders:
            missing = pending(folder, chunks)
            if missing:
                raise ValueError(
                    f"{len(missing)} of the {len(chunks)} chunks to learn are not in {folder} "
                    f"(the first: chunk {missing[0]}): label them (crates label) or name fewer "
                    "in expert.chunks"
                )
        paths = [chunk_path(folder, i) for folder in folders for i in chunks]
    if not paths:
        raise ValueError(f"no label chunks (chunk_*.npz) in {', '.join(map(str, folders))}")
    return Labels.concatenate([Labels.load(p, settings) for p in paths])
