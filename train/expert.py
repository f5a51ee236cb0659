"""Expert iteration: the search's choices distilled into the network, round after round
(``crates train --config configs/crates_4p_expert.yaml``), read top to bottom.

Each round:

1. **Label.** SearchAgent over the round's base (``expert.base`` in the first round, the
   network of the round before after that) plays games against ``expert.opponent``; every real
   choice of both sides is kept with the search's verdict (``train.labels``), in chunks under
   ``<labels>/round_<r>``. Finished chunks are skipped, so a killed run resumes where it
   stopped, and ``crates label`` labels a share of a round on another machine to pool.
2. **Distil.** From this round's labels and, with ``expert.pool``, the rounds' before. Without
   ``init`` a fresh network learns the search's choice at every labelled position
   (cross-entropy over the legal moves); with it, the round fine-tunes (``init`` in round 1,
   the round before's network after it): the search's sure changes of move are learned,
   weighted by ``expert.change_weight``, and the network keeps its own moves elsewhere. The
   critic learns the return that followed. The games held out (``expert.holdout``) say how
   often it agrees with the search.
3. **Refine.** ``expert.ppo_steps`` steps of self-play PPO from the distilled network (0: none).
4. **Check.** Duplicate deals against each baseline. TensorBoard (``<run>/tb/expert``) gets,
   at step r, the round's agreement with the search (``expert/...``) and its standing against
   each baseline (``eval/vs_<baseline>/...``).

The round's network is the next round's search base; the last one is the run's ``latest.zip``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

from crates_env.engine_choice import in_seat_layout
from crates_env.observation import SEAT_LAYOUT
from crates_env.processes import usable_cores
from crates_env.table_observation import make_observer
from train.config import ExpertConfig, TrainConfig, WarmStartConfig, check_run_folder
from train.evaluation import evaluate_against_baselines
from train.files import atomic_write, write_atomically
from train.imitation import Demonstrations, Gains, Hold, clone, policy_heads
from train.labels import LabelPlan, Labels, label, pending, pool_labels
from train.ppo import LATEST, atomic_save_model, make_vec_env, new_model
from train.ppo import train as train_ppo
from train.workers import torch_threads

STATE = "expert.json"
NETWORK = "network.zip"  # each round's network, in <run>/round_<r>/


def train_expert(config: TrainConfig, resume: bool = False, ray: str | None = None) -> Path:
    """Run (or resume) the rounds, labelling as Ray tasks on the cluster at ``ray`` if given;
    return the path of the last round's network."""
    with torch_threads(usable_cores()):  # as they were again after the run
        return _train_expert(config, resume, ray)


def _train_expert(config: TrainConfig, resume: bool, ray: str | None) -> Path:
    run_dir = config.run_dir
    check_run_folder(run_dir / STATE, resume)
    run_dir.mkdir(parents=True, exist_ok=True)
    state = _read_state(run_dir) if resume else {"rounds": []}
    if config.init:
        start_model(config, config.init)  # refused now, not after hours of labelling
    config.save()
    atomic_write(run_dir / STATE, json.dumps(state, indent=2))
    logger = configure(str(run_dir / "tb" / "expert"), ["tensorboard"])
    network = None
    for r in range(1, config.expert.rounds + 1):
        done = next((d for d in state["rounds"] if d["round"] == r), None)
        if done is not None:
            network = Path(done["network"])
            continue
        base = search_base(config, r)
        # 1. Label (and make again any chunk of a pooled earlier round lost since: the same
        # bytes, so the round learns what the config names)
        for earlier in range(1, r) if config.expert.pool else ():
            if pending(labels_folder(config, earlier), config.expert.round_chunks(earlier)):
                sum(label_round(config, earlier, ray=ray))
        rows = sum(label_round(config, r, base, ray=ray))
        labels = round_labels(config, r)
        print(f"round {r}: {labels.games:,} labelled games, {len(labels):,} positions")
        # 2. Distil
        network, report = distil(
            config, r, labels, run_dir / f"round_{r}" / NETWORK, start_of(config, network)
        )
        # 3. Refine
        if config.expert.ppo_steps:
            network = refine(config, r, network)
        # 4. Check
        score, _ = evaluate_against_baselines(config, network, config.eval.deals, logger)
        for key, value in report.items():
            logger.record(f"expert/{key}", value)
        logger.dump(r)
        state["rounds"].append(
            {
                "round": r,
                "base": base,
                "network": str(network),
                "new_rows": rows,
                **report,
                "score": score,
            }
        )
        atomic_write(run_dir / STATE, json.dumps(state, indent=2))
    if network is None:
        raise ValueError("expert.rounds is 0: nothing to do")
    write_atomically(run_dir / LATEST, lambda tmp: shutil.copyfile(network, tmp))
    return run_dir / LATEST


# ---------------------------------------------------------------------- 1. label
def search_base(config: TrainConfig, round_: int) -> str:
    """The round's search base: ``expert.base`` first, then the previous round's network."""
    if round_ == 1:
        return config.expert.base
    return str(config.run_dir / f"round_{round_ - 1}" / NETWORK)


def label_plan(config: TrainConfig, round_: int, base: str | None = None) -> LabelPlan:
    """What round ``round_`` labels (seeded by the run's seed and the round)."""
    ex = config.expert
    base = search_base(config, round_) if base is None else base
    spec = f"search:samples={ex.samples},stock_max={ex.stock_max},z={ex.z:g}"
    if ex.deepen:
        spec += f",deepen={ex.deepen}"
        spec += f",deepen_at={ex.deepen_at:g}" if ex.deepen_on == "spread" else ""
    if base != "heuristic":
        spec += f",base={base}"
    if round_ == 1 and config.init_other_table and base.endswith(".zip"):
        spec += ",other_table=true"  # the network the run starts from, of another table
    return LabelPlan(
        # the games write the seat layout, which the search and HeuristicAgent read: the labels
        # are the same whatever layout the run's network reads (round_labels widens them to it)
        env=in_seat_layout(config.env_kwargs()),
        search=spec,
        opponent=ex.opponent,
        games=ex.games_per_chunk,
        gamma=config.ppo.gamma,
        seed=1000 * config.seed + round_,
    )


def labels_folder(config: TrainConfig, round_: int) -> Path:
    where = Path(config.expert.labels) if config.expert.labels else config.run_dir / "labels"
    return where / f"round_{round_}"


def label_round(
    config: TrainConfig,
    round_: int,
    base: str | None = None,
    chunks: range | None = None,
    workers: int | None = None,
    progress: bool = True,
    ray: str | None = None,
):
    """Label the round's missing chunks (the round's ``expert.chunks``, or ``chunks``), over
    worker processes or as Ray tasks on the cluster at ``ray``; yields each finished chunk's
    number of positions. ``crates label`` runs this alone."""
    from tqdm import tqdm

    plan = label_plan(config, round_, base)
    chunks = config.expert.round_chunks(round_) if chunks is None else chunks
    workers = config.expert.workers if workers is None else workers
    folder = labels_folder(config, round_)
    bar = tqdm(
        label(plan, folder, chunks, workers, ray),
        total=len(chunks),
        initial=len(chunks) - len(pending(folder, chunks)),
        desc=f"round {round_} labels",
        unit="chunk",
        disable=not progress,
    )
    yield from bar


def round_labels(config: TrainConfig, round_: int) -> Labels:
    """The labels round ``round_`` learns from: its own chunks, and with ``expert.pool`` every
    earlier round's too (each read under its own round's settings)."""
    ex = config.expert
    rounds = range(1, round_ + 1) if ex.pool else [round_]
    labels = Labels.concatenate(
        [
            pool_labels(
                [labels_folder(config, r)], label_plan(config, r).settings(), ex.round_chunks(r)
            )
            for r in rounds
        ]
    )
    if config.observation == SEAT_LAYOUT:
        return labels
    learner = make_observer(config.ruleset(), config.observation)  # the run's network's layout
    return dataclasses.replace(labels, observations=learner.widen(labels.observations))


# ---------------------------------------------------------------------- 2. distil
def start_model(config: TrainConfig, start: str) -> MaskablePPO:
    """The MaskablePPO a round distils into: fresh, or with the weights of ``start``
    (ValueError if that network is not of the run's shape)."""
    vec = make_vec_env(config)
    try:
        return new_model(dataclasses.replace(config, init=start), vec)
    finally:
        vec.close()


def start_of(config: TrainConfig, last: Path | None) -> str:
    """The network a round fine-tunes: ``init`` in round 1 and the round before's network
    (``last``) after it; "" (a fresh network each round) without ``init``."""
    if not config.init:
        return ""
    return config.init if last is None else str(last)


def distil(
    config: TrainConfig, round_: int, labels: Labels, path: Path, start: str = ""
) -> tuple[Path, dict[str, Any]]:
    """A network of the run's shape taught ``labels`` (the search's choices at ``expert.z``,
    or at ``expert.learn_z`` when set, and the returns) for round ``round_``'s epochs, saved at
    ``path``; the numbers for the run's log. From a fresh network, or fine-tuned from the
    network ``start`` (a checkpoint, or ``shipped``): it learns the search's changes of move
    and keeps its own play elsewhere. With ``expert.objective: gains`` it learns every legal
    move's estimated gain at the searched positions instead (``train.imitation.Gains``)."""
    ex = config.expert
    target = labels.target(ex.z if ex.learn_z is None else ex.learn_z, ex.min_redeals)
    kept = first_held_out(labels.games, ex.holdout)
    learn = labels.game < kept
    gains, hold = None, None
    if ex.objective == "gains":  # every searched position, every legal move's worth
        learn &= labels.searched
        if not learn.any():
            raise ValueError("expert.objective: gains needs searched positions in the labels")
        gains = Gains.of(labels.gains[learn], labels.base[learn], ex.gain_scale, ex.base_bonus)
    elif start:  # a network that already plays keeps its moves where the search has no change
        hold = Hold(target[learn] == labels.base[learn], ex.change_weight)
    demos = Demonstrations(
        labels.observations[learn],
        labels.masks[learn],
        target[learn],
        labels.returns[learn],
        labels.points[:kept, 0],
    )
    model = start_model(config, start)
    stats = clone(
        model.policy,
        demos,
        ex.round_epochs(round_),
        ex.batch_size,
        ex.learning_rate,
        config.seed,
        hold=hold,
        gains=gains,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_save_model(model, path, config)
    report = {
        "positions": len(labels),
        "searched": int(labels.searched.sum()),
        "changed": int((target != labels.base).sum()),
        "train_accuracy": stats.accuracy,
        "value_loss": stats.value_loss,
        **agreement(model.policy, labels, ~learn, target),
    }
    print(
        f"distilled {path}: agrees with the search at {report['agreement']:.1%} of held-out "
        f"searched positions, takes {report['changes_taken']:.1%} of its changes"
    )
    return path, report


def first_held_out(games: int, holdout: float) -> int:
    """The index of the first of the last games, the share ``holdout`` of them (at least one
    with a holdout), that judge the distilled network; the games before it teach (at least
    one)."""
    return max(1, games - math.ceil(games * holdout))


def agreement(policy, labels: Labels, rows: np.ndarray, target: np.ndarray) -> dict[str, float]:
    """How the network's choices on ``rows`` meet the labels: ``agreement`` with the search
    where it searched, ``changes_taken`` where the search left its base's move,
    ``base_agreement`` where it did not search (NaN where a kind of row is missing)."""
    chosen = network_choices(policy, labels, rows)
    aim, base, searched = target[rows], labels.base[rows], labels.searched[rows]

    def share(where: np.ndarray) -> float:
        return float((chosen[where] == aim[where]).mean()) if where.any() else float("nan")

    return {
        "agreement": share(searched),
        "changes_taken": share(aim != base),
        "base_agreement": share(~searched),
    }


def network_choices(policy, labels: Labels, rows: np.ndarray) -> np.ndarray:
    """The policy's most likely legal move at each of the labels' ``rows``."""
    with torch.no_grad():
        logits, _ = policy_heads(policy, torch.as_tensor(labels.observations[rows]))
    logits = logits.numpy()
    logits[~labels.masks[rows]] = -np.inf
    return logits.argmax(axis=1)


# ---------------------------------------------------------------------- 3. refine
def refine(config: TrainConfig, round_: int, network: Path) -> Path:
    """``expert.ppo_steps`` of PPO self-play from ``network``, as a run of its own in the
    round's folder (it resumes like any run)."""
    run = dataclasses.replace(
        config,
        run_name=f"{config.run_name}/round_{round_}/ppo",
        total_steps=config.expert.ppo_steps,
        init=str(network),
        warm_start=WarmStartConfig(),
        expert=ExpertConfig(),
    )
    return train_ppo(run, resume=(run.run_dir / LATEST).exists())


# ---------------------------------------------------------------------- the run's state
def _read_state(run_dir: Path) -> dict:
    """The rounds done so far; a ValueError naming the file when it is damaged."""
    path = run_dir / STATE
    try:
        rounds = json.loads(path.read_text())["rounds"]
        whole = all(isinstance(d, dict) and {"round", "network"} <= d.keys() for d in rounds)
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        whole, rounds = False, exc
    if not whole:
        raise ValueError(f"{path} is damaged ({rounds}); restore it or start a new run")
    state = {"rounds": rounds}
    missing = [d["network"] for d in rounds if not Path(d["network"]).is_file()]
    if missing:
        raise ValueError(f"{path} lists networks that are gone: {', '.join(missing)}")
    return state
