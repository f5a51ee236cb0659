"""A trained network on disk, read without running anything the file holds.

A network reads its inputs by position and learned its tables' card functions and scoring, so
its checkpoint says what it is beside its weights. A checkpoint is a zip archive of

- ``crates_checkpoint.json``, written by this module: ``format`` (``FORMAT``, raised whenever
  what a checkpoint holds changes; format 1, which always held the critic, is read too);
  ``critic``, false in a network written to play alone (``train.convert --play``);
  ``architecture`` (``Architecture``: the hidden layers, their activation, the observation's
  size, the number of actions, the count one-hots and a privileged critic's public part);
  ``observation``, the layout the network reads (``name`` and ``version``,
  ``crates_env.observation``'s); ``tables``, the list of tables it learned (``TableRecord``:
  preset, players and the rule options that differ from the preset's defaults; the options
  that only set the length of a game and who deals first, ``SCHEDULE_OPTIONS``, are recorded
  apart as ``schedule`` and do not make another table); ``training``, a run's step and update
  counts, which ``crates train --resume`` continues from; and ``provenance``, the package
  version and git commit that wrote it (``crates_env.provenance()``; absent from the networks
  converted from sb3-contrib zips);
- ``policy.pt``: the policy's weights, ``torch.save`` of its ``state_dict`` (without the
  critic's in a network to play alone: the critic only teaches the actor during training, and
  it is half the weights);
- ``optimizer.pt``, in a run's checkpoints only: Adam's state, which ``--resume`` continues
  with. A network to play or ship needs none (``train.convert`` writes one without it).

Reading one (``read_checkpoint``, ``load_network``, ``resume_training``) unpickles nothing the
file supplies: the JSON is parsed and checked field by field, the policy is built by this
package from the architecture, and the tensors are read with ``torch.load(weights_only=True)``
(tensors and plain containers only) into it. Every member's declared size is checked against
what the architecture needs before it is read, and it is read with that bound, so a member that
inflates to gigabytes is refused unread. Anything else, an sb3-contrib MaskablePPO zip among
them (SB3's loader unpickles its ``data``, which can run any code), is refused with a
ValueError naming the file and why.

A network plays at a table of its set: ``PolicyAgent`` refuses it elsewhere, naming the tables
it learned, and training starts from another table's network only when the config asks for it
(``init_other_table``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import struct
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from crates_env.actions import NUM_ACTIONS
from crates_env.files import FIXED_DATE
from crates_env.observation import LAYOUT_VERSION, SEAT_LAYOUT
from crates_env.rules import SCHEDULE_OPTIONS, Ruleset
from crates_env.table_observation import LAYOUT_VERSIONS
from crates_env.version import provenance

FORMAT = 2  # what a checkpoint holds: raise it whenever that changes
READABLE = (1, FORMAT)  # format 1 had no "critic" field: every network held its critic
# the state_dict entries of the critic (its hidden layers, its value head), which a network to
# play alone leaves out
CRITIC_MLP, CRITIC_HEAD = "mlp_extractor.value_net.", "value_net."
CRITIC_WEIGHTS = (CRITIC_MLP, CRITIC_HEAD)
CHECKPOINT_FILE = "crates_checkpoint.json"
WEIGHTS_FILE = "policy.pt"
OPTIMIZER_FILE = "optimizer.pt"
MEMBERS = (CHECKPOINT_FILE, WEIGHTS_FILE, OPTIMIZER_FILE)
SB3_DATA = "data"  # the member of an sb3-contrib zip that SB3's loader unpickles
TRAINING_KEYS = ("num_timesteps", "n_updates")
# activations by the name a checkpoint records -> torch.nn's class of it
ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU"}

# What a checkpoint may hold, checked before anything is read into memory.
MAX_JSON = 1 << 20  # bytes of crates_checkpoint.json
MAX_PARAMETERS = 1 << 24  # weights of a network (64 MiB of float32)
TORCH_OVERHEAD = 1 << 20  # bytes of a torch file beyond its tensors (names, pickle, padding)
MAX_TORCH_RECORDS = 4096  # files inside a torch file (one a tensor, and a few more)
MAX_MEMBERS = 16  # files a zip may hold before its directory is read (sb3-contrib's: 7)
ADAM_MOMENTS = 2  # Adam keeps two numbers for each weight
GIVE = "give a checkpoint that crates train wrote (runs/<run>/latest.zip), or train it again"


@dataclass(frozen=True)
class TableRecord:
    """A table a network learned at: the rules everybody agreed on."""

    preset: str
    num_players: int
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    # the length of the game and the first dealer it learned with (not part of the table)
    schedule: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def of(cls, rules: Ruleset) -> TableRecord:
        """The record of a table's rules."""
        options = json.loads(json.dumps(rules.options(), sort_keys=True))  # tuples as lists
        schedule = {k: options.pop(k) for k in sorted(SCHEDULE_OPTIONS & options.keys())}
        return cls(rules.preset, rules.num_players, options, schedule)

    def __str__(self) -> str:
        """``4-player crates``, with its options in brackets when it has any."""
        name = f"{self.num_players}-player {self.preset}"
        if self.options:
            name += " (" + ", ".join(f"{k}={v}" for k, v in sorted(self.options.items())) + ")"
        return name

    def to_dict(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "num_players": self.num_players,
            "options": self.options,
            "schedule": self.schedule,
        }

    @classmethod
    def from_dict(cls, data: Any) -> TableRecord:
        data = _fields(data, "a table", ("preset", "num_players", "options", "schedule"))
        return cls(
            _kind(data["preset"], str, "a table's preset"),
            _count(data["num_players"], "a table's num_players", 1, 64),
            _kind(data["options"], dict, "a table's options"),
            _kind(data["schedule"], dict, "a table's schedule"),
        )


@dataclass(frozen=True)
class Architecture:
    """The network a checkpoint's weights fill, which this package builds (``build``)."""

    observation_size: int  # what the policy reads: with a privileged critic, the hidden state too
    net_arch: tuple[int, ...]  # the hidden layers' widths, of the actor and of the critic
    activation: str = "tanh"  # a name of ACTIVATIONS
    action_count: int = NUM_ACTIONS
    counts: tuple[tuple[int, float, int], ...] | None = None  # CountsExtractor's one-hots
    public_size: int | None = None  # a privileged critic's actor reads the first this many

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation {self.activation!r} is not one of {', '.join(ACTIVATIONS)}"
            )
        if self.action_count != NUM_ACTIONS:
            raise ValueError(f"{self.action_count} actions, but Crates has {NUM_ACTIONS}")
        if self.public_size is not None and not 0 < self.public_size <= self.observation_size:
            raise ValueError(
                f"public_size {self.public_size} is not within the {self.observation_size} inputs"
            )
        for index, scale, width in self.counts or ():
            if not (0 <= index < self.observation_size and scale > 0 and width > 0):
                raise ValueError(f"the count one-hot {[index, scale, width]} does not fit")
        if self.parameters() > MAX_PARAMETERS:
            raise ValueError(
                f"{self.parameters():,} weights, more than the {MAX_PARAMETERS:,} a checkpoint "
                "may hold"
            )

    @classmethod
    def of(cls, policy: Any) -> Architecture:
        """The architecture of a policy this package built (``MaskableActorCriticPolicy`` or
        ``PrivilegedCriticPolicy``, on the observation alone or with the count one-hots);
        ValueError for another (it could not be built back from a checkpoint)."""
        from stable_baselines3.common.torch_layers import FlattenExtractor

        from .networks import CountsExtractor

        extractor, widths = policy.features_extractor, policy.net_arch
        if (
            isinstance(widths, dict)
            and widths.keys() == {"pi", "vf"}
            and widths["pi"] == widths["vf"]
        ):
            widths = widths["pi"]  # SB3's default spelling of one list of widths
        activation = {v: k for k, v in ACTIVATIONS.items()}.get(policy.activation_fn.__name__)
        if (
            activation is None
            or not isinstance(widths, list)
            or not isinstance(extractor, CountsExtractor | FlattenExtractor)
        ):
            raise ValueError(
                "a checkpoint holds an MLP policy (one list of hidden widths for the actor and "
                f"the critic, activation {' or '.join(ACTIVATIONS)}, the observation alone or "
                f"with its count one-hots), not {type(policy).__name__} with net_arch "
                f"{policy.net_arch}, {policy.activation_fn.__name__} and "
                f"{type(extractor).__name__}"
            )
        counts = extractor.counts if isinstance(extractor, CountsExtractor) else None
        return cls(
            int(policy.observation_space.shape[0]),
            tuple(int(w) for w in widths),
            activation,
            int(policy.action_space.n),
            counts,
            getattr(policy, "public_size", None),
        )

    def __str__(self) -> str:
        """``net_arch [256, 256] (tanh) on 284 inputs with count one-hots``."""
        text = (
            f"net_arch {list(self.net_arch)} ({self.activation}) on {self.observation_size} inputs"
        )
        if self.counts is not None:
            text += " with count one-hots"
        if self.public_size is not None:
            text += f", the actor reading the first {self.public_size}"
        return text

    @property
    def actor_inputs(self) -> int:
        """The observation values the actor reads (a privileged critic's reads more)."""
        return self.public_size or self.observation_size

    def parameters(self, critic: bool = True) -> int:
        """The number of weights of the actor and (``critic``) the critic."""
        features = self.observation_size + sum(width for *_, width in self.counts or ())

        def mlp(inputs: int, outputs: int) -> int:
            total = 0
            for width in (*self.net_arch, outputs):
                total, inputs = total + (inputs + 1) * width, width
            return total

        actor = self.public_size if self.public_size is not None else features
        return mlp(actor, self.action_count) + (mlp(features, 1) if critic else 0)

    def build(self) -> Any:
        """An untrained policy of this architecture, in which a checkpoint's weights go; torch's
        random state is as it was before (loading a network draws nothing)."""
        import torch
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        from .networks import CountsExtractor, PrivilegedCriticPolicy, untrained_policy

        kwargs: dict[str, Any] = {
            "net_arch": list(self.net_arch),
            "activation_fn": getattr(torch.nn, ACTIVATIONS[self.activation]),
            "ortho_init": False,  # the weights are the checkpoint's: skip SB3's costly QRs
        }
        if self.counts is not None:
            kwargs["features_extractor_class"] = CountsExtractor
            kwargs["features_extractor_kwargs"] = {"counts": self.counts}
        policy_class = MaskableActorCriticPolicy
        if self.public_size is not None:
            policy_class, kwargs["public_size"] = PrivilegedCriticPolicy, self.public_size
        space = spaces.Box(-np.inf, np.inf, (self.observation_size,), np.float32)
        with torch.random.fork_rng(devices=[]):
            return untrained_policy(policy_class, kwargs, space, spaces.Discrete(self.action_count))

    def to_dict(self) -> dict[str, Any]:
        return {
            "observation_size": self.observation_size,
            "net_arch": list(self.net_arch),
            "activation": self.activation,
            "action_count": self.action_count,
            "counts": None if self.counts is None else [list(c) for c in self.counts],
            "public_size": self.public_size,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Architecture:
        keys = ("observation_size", "net_arch", "activation", "action_count", "counts")
        data = _fields(data, "the architecture", (*keys, "public_size"))
        size = _count(data["observation_size"], "observation_size", 1, MAX_PARAMETERS)
        widths = _kind(data["net_arch"], list, "net_arch")
        if len(widths) > 64:
            raise ValueError(f"net_arch has {len(widths)} layers, more than 64")
        counts = data["counts"]
        if counts is not None:
            counts = tuple(_count_view(view) for view in _kind(counts, list, "counts"))
        public = data["public_size"]
        return cls(
            size,
            tuple(_count(w, "a width of net_arch", 1, MAX_PARAMETERS) for w in widths),
            _kind(data["activation"], str, "activation"),
            _count(data["action_count"], "action_count", 1, MAX_PARAMETERS),
            counts,
            None if public is None else _count(public, "public_size", 1, MAX_PARAMETERS),
        )


@dataclass(frozen=True)
class Checkpoint:
    """What a checkpoint says it is (its ``crates_checkpoint.json``), and whether it holds an
    optimizer's state."""

    architecture: Architecture
    tables: tuple[TableRecord, ...]
    layout: tuple[str, int] = (SEAT_LAYOUT, LAYOUT_VERSION)  # the observation it reads
    training: dict[str, int] = field(default_factory=dict, hash=False)  # TRAINING_KEYS
    has_optimizer: bool = False
    # the code that wrote it (crates_env.provenance(): version, git commit); empty in the
    # checkpoints converted from sb3-contrib zips, which the code of their day did not record
    provenance: dict[str, str | None] = field(default_factory=dict, hash=False)
    critic: bool = True  # False: a network to play alone, its critic's weights left out

    def __post_init__(self) -> None:
        if not self.tables:
            raise ValueError("a network learned at least one table: its tables are empty")

    def learned(self) -> str:
        """The tables it learned, in words: ``4-player crates and 4-player kreights``."""
        names = [str(t) for t in self.tables]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def mismatch(self, table: TableRecord, other_table: bool = False) -> str:
        """Empty if the network plays at ``table`` (one of its set; with ``other_table`` any
        table); else what differs, in words. The observation layout it reads must be this
        package's either way."""
        if not other_table and table not in self.tables:
            return f"it learned {self.learned()}, and this table is {table}"
        name, version = self.layout
        if LAYOUT_VERSIONS.get(name) != version:
            written = ", ".join(f"{n} {v}" for n, v in LAYOUT_VERSIONS.items())
            return (
                f"it reads observation layout {name} {version}, and this package writes "
                f"layouts {written}"
            )
        return ""

    def check(self, path: str | Path, table: TableRecord, other_table: bool = False) -> None:
        """ValueError naming ``path`` unless the network plays at ``table`` (``mismatch``)."""
        problem = self.mismatch(table, other_table)
        if problem:
            raise ValueError(
                f"{path}: {problem}; a network plays only at the tables it learned (to start a "
                f"network for this table from it, train with init: {path} and "
                "init_other_table: true)"
            )

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "critic": self.critic,
                "architecture": self.architecture.to_dict(),
                "observation": {"name": self.layout[0], "version": self.layout[1]},
                "tables": [t.to_dict() for t in self.tables],
                "training": self.training,
                **({"provenance": self.provenance} if self.provenance else {}),
            },
            indent=1,
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str, has_optimizer: bool) -> Checkpoint:
        data = json.loads(text)
        if isinstance(data, dict) and data.get("format", FORMAT) not in READABLE:
            raise FormatError(data["format"])
        keys = ("format", "architecture", "observation", "tables", "training")
        critic = data.pop("critic", True) if isinstance(data, dict) else True
        if not isinstance(critic, bool) or (not critic and data.get("format") != FORMAT):
            raise ValueError(f"critic must be true or false (from format {FORMAT}), not {critic!r}")
        made_by = data.pop("provenance", {}) if isinstance(data, dict) else {}
        made_by = _fields(made_by, "provenance", ("version", "commit"), optional=True)
        for key, value in made_by.items():
            if value is not None:
                _kind(value, str, f"provenance's {key}")
        data = _fields(data, "the checkpoint", keys)
        layout = _fields(data["observation"], "observation", ("name", "version"))
        training = _fields(data["training"], "training", TRAINING_KEYS, optional=True)
        return cls(
            Architecture.from_dict(data["architecture"]),
            tuple(TableRecord.from_dict(t) for t in _kind(data["tables"], list, "tables")),
            (
                _kind(layout["name"], str, "the observation's name"),
                _count(layout["version"], "the observation's version", 0, 1 << 30),
            ),
            {k: _count(v, f"training's {k}", 0, 1 << 62) for k, v in training.items()},
            has_optimizer,
            made_by,
            critic,
        )


@dataclass(frozen=True)
class Network:
    """A checkpoint loaded to play: what it says it is, and its policy (in eval mode)."""

    path: Path
    checkpoint: Checkpoint
    policy: Any  # MaskableActorCriticPolicy


class FormatError(ValueError):
    """A crates_checkpoint.json of another format than this package's."""

    def __init__(self, found: Any) -> None:
        super().__init__(
            f"checkpoint format {found!r}, and this package reads formats "
            f"{' and '.join(map(str, READABLE))} (a newer crates wrote it, or not crates at all)"
        )


# ---------------------------------------------------------------------- read
def read_checkpoint(path: str | Path) -> Checkpoint:
    """What the checkpoint at ``path`` says it is (its JSON alone: no weights are read);
    ValueError naming the file and the problem for anything that is not one."""
    path = Path(path)
    with _opened(path) as archive:
        return _checkpoint(archive, path)


def load_network(path: str | Path, device: str = "cpu") -> Network:
    """The network at ``path``, built from its architecture and filled with its weights, ready to
    play; ValueError naming the file and the problem for anything that is not one."""
    path = Path(path)
    with _opened(path) as archive:
        checkpoint = _checkpoint(archive, path)
        weights = read_tensors(archive, path, WEIGHTS_FILE, _weights_limit(checkpoint))
    return build_network(path, checkpoint, weights, device)


def build_network(path: Path, checkpoint: Checkpoint, weights: Any, device: str = "cpu") -> Network:
    """The network ``checkpoint`` describes, filled with ``weights`` (``read_tensors``'s) and
    ready to play; ValueError naming ``path`` unless they are exactly its tensors."""
    policy = checkpoint.architecture.build()
    _fill(policy, weights if checkpoint.critic else _with_still_critic(policy, weights, path), path)
    policy.to(device)
    policy.set_training_mode(False)
    return Network(path, checkpoint, policy)


def play_digest(network: Network) -> str:
    """What decides the network's moves, as 16 hex digits of a sha256: the layout it reads, its
    architecture and its actor's weights. Not its critic, optimizer state or provenance: a
    network written again to play alone (``train.convert --play``) keeps its digest."""
    digest = hashlib.sha256(
        json.dumps(
            [network.checkpoint.layout, network.checkpoint.architecture.to_dict()], sort_keys=True
        ).encode()
    )
    for name, weights in sorted(without_critic(network.policy.state_dict()).items()):
        digest.update(name.encode())
        digest.update(weights.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def check_table(path: str | Path, table: TableRecord, other_table: bool = False) -> None:
    """ValueError unless the network at ``path`` learned at ``table`` (``Checkpoint.check``)."""
    read_checkpoint(path).check(path, table, other_table)


def resume_training(
    model: Any, path: str | Path, tables: Sequence[Ruleset], layout: str = SEAT_LAYOUT
) -> None:
    """Continue a run at the tables of ``tables`` (read in ``layout``): the weights, the
    optimizer's state and the step count of the checkpoint at ``path`` into ``model`` (a
    MaskablePPO built from the run's config, ``train.ppo``); ValueError naming the file if it is
    not a run's checkpoint of the model's network at those tables."""
    path = Path(path)
    with _opened(path) as archive:
        checkpoint = _checkpoint(archive, path)
        for rules in tables:
            checkpoint.check(path, TableRecord.of(rules))
        if checkpoint.layout[0] != layout:
            raise ValueError(
                f"{path}: its network reads the {checkpoint.layout[0]} layout, and this run's "
                f"observation is {layout}"
            )
        built = Architecture.of(model.policy)
        if checkpoint.architecture != built:
            raise ValueError(
                f"{path}: does not fit this run: it holds a network of "
                f"{checkpoint.architecture}, and the config builds {built}"
            )
        if not checkpoint.has_optimizer or set(checkpoint.training) != set(TRAINING_KEYS):
            raise ValueError(
                f"{path}: holds a network to play, not a run's checkpoint (no optimizer state or "
                f"step count): start a new run from it with init: {path}"
            )
        weights = read_tensors(archive, path, WEIGHTS_FILE, _weights_limit(checkpoint))
        state = read_tensors(
            archive, path, OPTIMIZER_FILE, ADAM_MOMENTS * _weights_limit(checkpoint)
        )
    _fill(model.policy, weights, path)
    try:
        model.policy.optimizer.load_state_dict(state)
    except (ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise ValueError(
            f"{path}: its {OPTIMIZER_FILE} is not this network's optimizer state "
            f"({first_line(exc)})"
        ) from None
    model.num_timesteps = checkpoint.training["num_timesteps"]
    model._n_updates = checkpoint.training["n_updates"]


# ---------------------------------------------------------------------- write
def save_checkpoint(
    path: str | Path,
    policy: Any,
    tables: Iterable[TableRecord],
    optimizer: Any = None,
    training: dict[str, int] | None = None,
    layout: str = SEAT_LAYOUT,
    critic: bool = True,
) -> None:
    """Write ``policy`` (one this package builds: ``Architecture.of``) as a checkpoint of the
    ``tables`` it learned, reading ``layout``, at ``path``; with a run's ``optimizer`` and
    ``training`` counts (``TRAINING_KEYS``) when it is to be resumed; without ``critic``, its
    actor alone, a network to play (or to start a run from, whose critic then starts afresh)."""
    if optimizer is not None and not critic:
        raise ValueError("a run's checkpoint keeps its critic: the optimizer's state covers it")
    checkpoint = Checkpoint(
        Architecture.of(policy),
        tuple(tables),
        (layout, LAYOUT_VERSIONS[layout]),
        training=dict(training or {}),
        provenance=provenance(),
        critic=critic,
    )
    weights = {k: v.detach().cpu() for k, v in policy.state_dict().items()}
    members = {
        CHECKPOINT_FILE: checkpoint.to_json().encode(),
        WEIGHTS_FILE: _torch_bytes(weights if critic else without_critic(weights)),
    }
    if optimizer is not None:
        members[OPTIMIZER_FILE] = _torch_bytes(optimizer.state_dict())
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():  # no dates: the same network, the same bytes
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)


def save_training(
    model: Any, path: str | Path, tables: Sequence[Ruleset], layout: str = SEAT_LAYOUT
) -> None:
    """A run's checkpoint of ``model`` (a MaskablePPO) at the tables of ``tables``, reading
    ``layout``: its network, its optimizer's state and its step count, all that
    ``resume_training`` needs."""
    training = {"num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates)}
    records = [TableRecord.of(rules) for rules in tables]
    save_checkpoint(path, model.policy, records, model.policy.optimizer, training, layout)


def first_line(exc: BaseException, limit: int = 120) -> str:
    """The first line of an exception's message, shortened: torch and SB3 write essays."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if text.startswith("Weights only load failed"):  # torch's, whose advice is to trust it
        text = "it holds more than weights: damaged, or a file of another kind"
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------- inside
@contextlib.contextmanager
def open_archive(path: Path) -> Iterator[zipfile.ZipFile]:
    """The zip archive at ``path``, opened once the number of files its end record declares
    (read before zipfile reads its directory) is a checkpoint's or an sb3-contrib zip's."""
    if not path.is_file():
        raise ValueError(f"{path}: no such checkpoint file")
    with open(path, "rb") as file:
        members = _zip_members(file)
        if members < 0:
            raise ValueError(f"{path}: not a checkpoint (not a zip archive); {GIVE}")
        if members > MAX_MEMBERS:
            raise ValueError(
                f"{path}: not a checkpoint (it holds {members:,} files; a checkpoint holds "
                f"{', '.join(MEMBERS)})"
            )
        try:
            archive = zipfile.ZipFile(file)
        except zipfile.BadZipFile as exc:
            raise ValueError(
                f"{path}: not a checkpoint (a damaged zip archive: {exc}); {GIVE}"
            ) from None
        yield archive


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[zipfile.ZipFile]:
    """The checkpoint zip at ``path`` (``open_archive``) once its files are a checkpoint's."""
    with open_archive(path) as archive:
        names = set(archive.namelist())
        if CHECKPOINT_FILE not in names:
            raise ValueError(f"{path}: {_foreign(names)}")
        unknown = names - set(MEMBERS)
        if unknown or WEIGHTS_FILE not in names:
            what = f"files it should not: {', '.join(sorted(unknown))}" if unknown else "no weights"
            raise ValueError(f"{path}: a damaged checkpoint (it holds {what})")
        yield archive


def _foreign(names: set[str]) -> str:
    """What a zip without this package's record is, and what to do with it."""
    if SB3_DATA in names and "policy.pth" in names:
        return (
            "an sb3-contrib MaskablePPO checkpoint, which this package no longer loads (SB3's "
            "loader unpickles its data, which can run any code): convert it with python -m "
            "train.convert OLD.zip NEW.zip, which reads only its weights and its table"
        )
    return f"not a checkpoint (no {CHECKPOINT_FILE}); {GIVE}"


def _checkpoint(archive: zipfile.ZipFile, path: Path) -> Checkpoint:
    text = read_member(archive, path, CHECKPOINT_FILE, MAX_JSON)
    try:
        return Checkpoint.from_json(text.decode(), OPTIMIZER_FILE in archive.namelist())
    except FormatError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except (ValueError, KeyError, TypeError, RecursionError) as exc:  # JSON or a field
        raise ValueError(f"{path}: its {CHECKPOINT_FILE} is damaged ({exc}); {GIVE}") from None


def _weights_limit(checkpoint: Checkpoint) -> int:
    """The most bytes the network's weights take in a torch file."""
    return 4 * checkpoint.architecture.parameters(checkpoint.critic) + TORCH_OVERHEAD


def is_critic(name: str) -> bool:
    """Whether the state_dict entry ``name`` is the critic's (``CRITIC_WEIGHTS``)."""
    return name.startswith(CRITIC_WEIGHTS)


def without_critic(weights: dict[str, Any]) -> dict[str, Any]:
    """``weights`` (a policy's state_dict) without the critic's: the actor alone."""
    return {k: v for k, v in weights.items() if not is_critic(k)}


def _with_still_critic(policy: Any, weights: Any, path: Path) -> Any:
    """A network to play's actor ``weights`` with zeros for ``policy``'s critic, which no
    move reads: its value estimates are a constant 0, never a random network's (its agents
    report none). Anything but a dict of tensors is left for ``_fill`` to refuse."""
    if not isinstance(weights, dict):
        return weights
    if any(is_critic(str(k)) for k in weights):
        raise ValueError(
            f"{path}: a damaged checkpoint (its record says it holds no critic, and its "
            f"{WEIGHTS_FILE} holds one)"
        )
    critic = {k: v.new_zeros(v.shape) for k, v in policy.state_dict().items() if is_critic(k)}
    return {**weights, **critic}


def read_member(archive: zipfile.ZipFile, path: Path, name: str, limit: int) -> bytes:
    """The bytes of member ``name``, at most ``limit`` of them: its declared size is checked
    before it is read, and it is read with the bound (a size that lies fails the CRC)."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise ValueError(
            f"{path}: its {name} would inflate to {info.file_size:,} bytes, more than the "
            f"{limit:,} its network needs: refused unread (damaged, or made to exhaust memory)"
        )
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ValueError(f"{path}: its {name} is damaged ({exc}); {GIVE}") from None
    if len(data) > limit:
        raise ValueError(f"{path}: its {name} inflates past its declared size: refused")
    return data


def read_tensors(archive: zipfile.ZipFile, path: Path, name: str, limit: int) -> Any:
    """Member ``name``, a torch file, read with ``weights_only`` (tensors and plain containers;
    never a pickled object), its records stored uncompressed (torch's own way: nothing in it
    inflates)."""
    import torch

    data = read_member(archive, path, name, limit)
    buffer = io.BytesIO(data)
    records = _zip_members(buffer)
    if not 0 < records <= MAX_TORCH_RECORDS:
        raise ValueError(f"{path}: its {name} is not a torch file of tensors; {GIVE}")
    with zipfile.ZipFile(buffer) as inner:
        if any(i.compress_type != zipfile.ZIP_STORED for i in inner.infolist()):
            raise ValueError(
                f"{path}: its {name} holds compressed records, which torch never writes"
            )
    buffer.seek(0)
    try:
        return torch.load(buffer, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds on a damaged or hostile file
        called = re.search(r"GLOBAL (\S+)", str(exc))
        what = f"it would call {called.group(1)}" if called else first_line(exc)
        raise ValueError(
            f"{path}: its {name} holds more than tensors, refused without running it ({what})"
        ) from None


def _fill(policy: Any, weights: Any, path: Path) -> None:
    """``weights`` into ``policy``: every tensor of its state, of its shape, and nothing else."""
    import torch

    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) and v.dtype == torch.float32
        for k, v in weights.items()
    ):
        raise ValueError(f"{path}: its {WEIGHTS_FILE} is not a network's float32 weights")
    try:
        policy.load_state_dict(weights)
    except RuntimeError as exc:  # torch: missing, unexpected or misshapen tensors
        raise ValueError(
            f"{path}: its weights do not fit its architecture ({first_line(exc)})"
        ) from None


def _torch_bytes(value: Any) -> bytes:
    import torch

    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


_END = struct.Struct("<4s4H2LH")  # a zip's end-of-central-directory record


def _zip_members(file: Any) -> int:
    """How many members the zip archive in ``file`` declares (its end record, found in the last
    64 KiB); -1 if it is not a zip archive."""
    size = file.seek(0, io.SEEK_END)
    tail = min(size, _END.size + 0xFFFF)
    file.seek(size - tail)
    data = file.read(tail)
    file.seek(0)
    at = data.rfind(b"PK\x05\x06")
    if at < 0 or len(data) - at < _END.size:
        return -1
    return _END.unpack_from(data, at)[4]


def _fields(data: Any, what: str, keys: tuple[str, ...], optional: bool = False) -> dict:
    """``data``, a JSON object of ``keys`` (some of them with ``optional``), and no others."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be an object, not {type(data).__name__}")
    missing, extra = set(keys) - data.keys(), data.keys() - set(keys)
    if (missing and not optional) or extra:
        raise ValueError(
            f"{what} must hold {', '.join(keys)}"
            + (f"; it lacks {', '.join(sorted(missing))}" if missing and not optional else "")
            + (f"; it has {', '.join(sorted(map(str, extra)))} too" if extra else "")
        )
    return data


_JSON_KINDS = {dict: "an object", list: "a list", str: "a string"}


def _kind(value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind):
        raise ValueError(f"{what} must be {_JSON_KINDS[kind]}, not {value!r:.40}")
    return value


def _count(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high:,}, not {value!r:.40}")
    return value


def _count_view(view: Any) -> tuple[int, float, int]:
    """One count one-hot of the architecture: [index, scale, width]."""
    if not isinstance(view, list) or len(view) != 3:
        raise ValueError(f"a count one-hot must be [index, scale, width], not {view!r:.40}")
    index, scale, width = view
    if isinstance(scale, bool) or not isinstance(scale, int | float):
        raise ValueError(f"a count one-hot's scale must be a number, not {scale!r:.40}")
    return (
        _count(index, "a count one-hot's index", 0, MAX_PARAMETERS),
        float(scale),
        _count(width, "a count one-hot's width", 1, 1024),
    )
