"""A network as a checkpoint to play, ship or start a run from (``agents.checkpoints``): without
the optimizer's state and step count a run's checkpoint keeps for ``crates train --resume``.

    python -m train.convert SOURCE [DEST] [--verify] [--play]

SOURCE is a checkpoint of this package (a run's ``latest.zip``: a shipped network is written this
way, docs/model_card.md) or an sb3-contrib MaskablePPO zip as crates wrote them before
(``crates_table.json`` beside SB3's files), which this package no longer loads. An sb3-contrib
zip is read without unpickling anything: its ``policy.pth`` with ``torch.load(weights_only=True)``
and its table's JSON, nothing else. The architecture is read off the weights' shapes: the hidden
widths from the layers, the count one-hots or a privileged critic from the inputs the actor and
the critic read against the table's observation size; the activation is tanh, SB3's default,
which no config of the project changes. DEST defaults to SOURCE (replaced whole, atomically).

``--play`` writes the actor alone, a network to play (half the weights: the critic only teaches
the actor in training; the package ships its networks this way, docs/model_card.md). A run
started from it (``init:``) keeps the actor and learns a new critic.

``--verify`` (an sb3-contrib zip only) also loads SOURCE with SB3's own loader, which unpickles
it: only for a file you trust (the repository's own were converted this way). Before anything is
written, the new network's action probabilities and values must be bit-identical to the old
one's at 512 decisions of seeded random games at its table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Table
from agents.checkpoints import (
    CHECKPOINT_FILE,
    CRITIC_HEAD,
    CRITIC_MLP,
    MAX_JSON,
    MAX_PARAMETERS,
    TORCH_OVERHEAD,
    Architecture,
    Checkpoint,
    Network,
    TableRecord,
    build_network,
    load_network,
    open_archive,
    read_member,
    read_tensors,
    save_checkpoint,
)
from agents.networks import count_views
from crates_env.env import raw_env
from crates_env.files import write_atomically
from crates_env.observation import LAYOUT_VERSION

SB3_WEIGHTS, SB3_TABLE = (
    "policy.pth",
    "crates_table.json",
)  # an sb3-contrib zip's, as crates wrote it
ACTOR = "mlp_extractor.policy_net."


def convert(source: Path, dest: Path, verify: bool = False, play: bool = False) -> Network:
    """Write the network of ``source`` (this package's checkpoint, or an sb3-contrib zip) at
    ``dest`` without optimizer state (``play``: without its critic too); the network as
    written. ValueError naming the file for
    anything else, or (``verify``) if the converted network does not play as the old one."""
    with open_archive(source) as archive:
        names = set(archive.namelist())
    if CHECKPOINT_FILE in names:
        if verify:
            raise ValueError(f"{source}: --verify compares an sb3-contrib zip's conversion")
        network = load_network(source)
    elif {SB3_WEIGHTS, SB3_TABLE} <= names:
        network = from_sb3(source)
        if verify:
            verify_against_sb3(source, network)
    else:
        raise ValueError(
            f"{source}: neither a checkpoint of this package nor an sb3-contrib zip crates wrote "
            f"(it holds {', '.join(sorted(names))})"
        )

    def write(tmp: Path) -> None:
        save_checkpoint(
            tmp,
            network.policy,
            network.checkpoint.tables,
            layout=network.checkpoint.layout[0],
            critic=network.checkpoint.critic and not play,
        )

    write_atomically(dest, write)
    return load_network(dest)


def from_sb3(path: Path) -> Network:
    """The network of an sb3-contrib zip, built from its weights' shapes and its table's JSON,
    unpickling nothing (see the module's docstring)."""
    with open_archive(path) as archive:
        table = sb3_table(path, read_member(archive, path, SB3_TABLE, MAX_JSON))
        weights = read_tensors(archive, path, SB3_WEIGHTS, 4 * MAX_PARAMETERS + TORCH_OVERHEAD)
    try:
        at = Table.from_rules(table.preset, **_rules(table))
    except ValueError as exc:
        raise ValueError(
            f"{path}: its {SB3_TABLE} names no table of this package ({exc})"
        ) from None
    try:
        architecture = architecture_of(path, weights, at)
    except (AttributeError, IndexError, KeyError, TypeError) as exc:  # not SB3's weights
        raise ValueError(
            f"{path}: its {SB3_WEIGHTS} is not a MaskablePPO policy's weights ({exc!r})"
        ) from None
    return build_network(path, Checkpoint(architecture, (table,)), weights)


def sb3_table(path: Path, text: bytes) -> TableRecord:
    """The table of an sb3-contrib zip's ``crates_table.json`` (of this observation layout)."""
    try:
        data = json.loads(text)
        layout = data.pop("layout_version")
        data.setdefault("schedule", {})
        table = TableRecord.from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: its {SB3_TABLE} is damaged ({exc})") from None
    if layout != LAYOUT_VERSION:
        raise ValueError(
            f"{path}: it reads observation layout {layout}, and this package writes "
            f"{LAYOUT_VERSION}"
        )
    return table


def architecture_of(path: Path, weights: dict[str, Any], table: Table) -> Architecture:
    """The architecture of SB3 weights at ``table``: the actor's hidden widths; a critic that
    reads more than the actor is a privileged one, and an actor that reads more than the
    observation reads the count one-hots."""
    layers = sorted(
        (int(key[len(ACTOR) :].split(".")[0]), value)
        for key, value in weights.items()
        if key.startswith(ACTOR) and key.endswith(".weight")
    )
    widths = tuple(int(value.shape[0]) for _, value in layers)
    actor_in = int((layers[0][1] if layers else weights["action_net.weight"]).shape[1])
    critic = weights.get(f"{CRITIC_MLP}0.weight", weights.get(f"{CRITIC_HEAD}weight"))
    critic_in = int(critic.shape[1])
    if critic_in > actor_in:
        return Architecture(critic_in, widths, public_size=actor_in)
    counts = tuple(count_views(table))
    if actor_in == table.obs_size + sum(width for *_, width in counts):
        return Architecture(table.obs_size, widths, counts=counts)
    if actor_in != table.obs_size:
        raise ValueError(
            f"{path}: its actor reads {actor_in} values, which is neither the {table.obs_size} of "
            f"a {table.num_players}-player {table.preset} observation nor that with its counts"
        )
    return Architecture(table.obs_size, widths)


def verify_against_sb3(path: Path, network: Network) -> None:
    """ValueError unless ``network`` gives bit-identical action probabilities and values to the
    sb3-contrib zip at ``path`` loaded by SB3 (which unpickles it: a file you trust only)."""
    import torch
    from sb3_contrib import MaskablePPO

    old = MaskablePPO.load(path, device="cpu").policy
    old.set_training_mode(False)
    (table,) = network.checkpoint.tables
    observations, _ = decisions(table, 512)
    if network.checkpoint.architecture.public_size is not None:  # the critic reads hidden state
        size = network.checkpoint.architecture.observation_size
        observations = np.random.default_rng(0).random((512, size), dtype=np.float32)
    obs = torch.as_tensor(observations)
    with torch.no_grad():
        for name, of in (
            ("action probabilities", lambda p: p.get_distribution(obs).distribution.probs),
            ("values", lambda p: p.predict_values(obs)),
        ):
            if not torch.equal(of(old), of(network.policy)):
                raise ValueError(f"{path}: the converted network's {name} differ from SB3's")


def decisions(table: TableRecord, count: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of ``count`` decisions with a choice in seeded games of random
    legal moves at ``table``: every fifth, at most 32 a game (early and late hands, several
    games)."""
    env = raw_env(preset=table.preset, **_rules(table))
    rng = np.random.default_rng(20261129)
    observations, masks = [], []
    for seed in range(1000):
        env.reset(seed=seed)
        choices = 0
        while not env.game.game_over and choices < 5 * 32 and len(masks) < count:
            seen = env.observe(env.agent_selection)
            mask = seen["action_mask"].astype(bool)
            if mask.sum() > 1:
                choices += 1
                if choices % 5 == 0:
                    observations.append(seen["observation"])
                    masks.append(mask)
            env.step(int(rng.choice(np.flatnonzero(mask))))
        if len(masks) == count:
            return np.stack(observations), np.stack(masks)
    raise ValueError(f"fewer than {count} decisions with a choice in 1000 games at {table}")


def _rules(table: TableRecord) -> dict[str, Any]:
    """The keyword arguments of ``table``'s rules (its options and schedule, players too)."""
    return {"num_players": table.num_players, **table.options, **table.schedule}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.convert", description=__doc__)
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path, nargs="?")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--play", action="store_true", help="the actor alone: a network to play")
    args = parser.parse_args(argv)
    try:
        network = convert(args.source, args.dest or args.source, args.verify, args.play)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    alone = "" if network.checkpoint.critic else " (to play: no critic)"
    print(
        f"{args.dest or args.source}: {network.checkpoint.architecture}{alone}, learned at "
        f"{network.checkpoint.learned()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
