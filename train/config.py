"""Training configuration: one YAML file under ``configs/``, overridable from the command line.

Every key is declared here with its type and default; an unknown key or a value of the wrong
type stops at once with a message naming it and the valid keys.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from crates_env.actions import NUM_ACTIONS
from crates_env.batch import ReferenceGames
from crates_env.processes import machine_memory
from crates_env.rules import Ruleset, make_ruleset, register_rules_file
from crates_env.settings import REWARD_MODES, REWARD_TIMINGS
from crates_env.table_observation import (
    COVERED_TABLES,
    check_observation,
    make_observer,
    table_key,
    table_of,
)


# The defaults of every key are configs/default.yaml's (a test holds them equal): a config that
# leaves a key out trains as the main job does there.
@dataclass
class PPOConfig:
    learning_rate: float = 1e-4
    n_steps: int = 64  # per environment, per rollout
    batch_size: int = 1024
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.001
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


@dataclass
class OpponentConfig:
    scripted: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_weight: float = 0.0  # total sampling weight of the learner's frozen snapshots
    snapshot_every: int = 200_000  # steps between snapshots
    max_snapshots: int = 5


@dataclass
class BaselineChecks:
    """The ``eval`` section: the learner checked against the scripted baselines during the run
    and at its end (each check an ordinary evaluation, ``train.evaluation.EvalConfig``)."""

    every: int = 300_000  # steps between evaluations against the baselines
    deals: int = 20  # duplicate deals per baseline
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    final_deals: int = 200  # deals per baseline for the summary table at the end
    seed: int = 12345  # fixed, so every evaluation plays the same deals
    replays: int = 2  # games per baseline of the final evaluation written as replay pages


@dataclass
class WarmStartConfig:
    """Clone a teacher into the policy before PPO starts (train/imitation.py): a scripted
    agent, or by table a network (distillation)."""

    # A scripted agent's name, or "search" (HeuristicAgent improved by rollouts where the stock
    # runs short, agents/search.py); "" starts PPO from a random policy (or from init's).
    teacher: str = ""
    # The teacher at chosen tables of the run, by table ("craits:2", as tables names them): an
    # agent's name or the path of a checkpoint that learned that table. The other tables learn
    # from teacher (and fallback); with teacher "" they are left out of the warm start.
    teachers: dict[str, str] = field(default_factory=dict)
    # The actor learns a network teacher's whole distribution over the legal moves (the
    # cross-entropy to its probabilities), not only the move it plays; a scripted teacher's
    # distribution is its move.
    soft: bool = False
    opponent: str = "heuristic"  # who the teacher plays against
    # the teacher at a table of a mixture where the teacher does not play (``shipped``, where
    # the package has no network there); "" refuses such a table
    fallback: str = ""
    games: int = 400  # teacher games to learn from
    workers: int = 1  # processes playing the teacher's games (the search teacher is slow)
    epochs: int = 10
    batch_size: int = 1024
    learning_rate: float = 1e-3
    search_samples: int = 8  # the search teacher's re-deals per move
    search_stock_max: int = 6  # the search teacher looks ahead from this stock size down
    search_z: float = 1.0  # it leaves HeuristicAgent's move only for a gain this many std errors
    # An .npz of the teacher's games: read when it exists (it must have been collected with
    # these settings), otherwise collected and written there, so a slow teacher's games can be
    # cloned again without playing them again. "" keeps them in memory only.
    demos: str = ""

    def teaches(self) -> bool:
        """Whether the run has a warm start: a teacher at some table."""
        return bool(self.teacher or self.teachers)


@dataclass
class ExpertConfig:
    """Expert iteration (train/expert.py, ``mode: expert``): rounds in which a search labels
    positions of its own games and the network learns its choices."""

    rounds: int = 0  # mode expert takes 1 or more
    base: str = "heuristic"  # the first round's search base; each later round's is the network
    samples: int = 16  # the search's re-deals per move
    stock_max: int = 10  # it searches from this stock size down ("all": from the first move)
    z: float = 1.0  # it leaves its base's move for a gain this many standard errors (and the
    #                 network learns that choice)
    # Up to this many more rounds of `samples` re-deals for a decision whose moves still look
    # deepen_at points of the hand apart (best mean margin against worst; deepen_on: spread):
    # the few decisions worth hundreds of points get a sure verdict, the many small ones cost
    # no more. deepen_on: gain deepens instead where the best move may yet beat the base's
    # (by z / 2 standard errors): where noise, not stakes, is the doubt (SearchAgent).
    deepen: int = 0
    deepen_at: float = 80.0
    deepen_on: str = "spread"
    # The network learns the search's change of move only from verdicts of this many re-deals
    # or more (with deepen: the decisions that matter); the base's move elsewhere.
    min_redeals: int = 1
    # The network learns a change of move whose gain is this many standard errors sure (null:
    # z, the search's own bar). The labels keep every gain and its error, so a lower bar takes
    # more of the search's changes from the same labels.
    learn_z: float | None = None
    opponent: str = "heuristic"  # who the searching side plays in the labelled games
    # Label chunks per round (each a file of games_per_chunk games): a count N (chunks 0 to
    # N-1), or ranges "0:44,100:126" (two machines' shares); a round labels the missing ones
    # and learns exactly these, whatever else its folder holds. This and epochs take one value
    # for every round, or a list of each round's (the last entry for any round after it).
    chunks: int | str | list[int | str] = 100
    games_per_chunk: int = 16
    workers: int = 2  # labelling processes
    # Where each round's label chunks go (<labels>/round_<r>); "" keeps them in the run folder.
    # A shared folder lets runs, or a split labelling run (crates label), pool them.
    labels: str = ""
    pool: bool = True  # a round learns from every round's labels so far, not only its own
    holdout: float = 0.05  # share of the labelled games kept back to measure agreement
    epochs: int | list[int] = 10  # the distillation's passes over the pooled labels, a round
    batch_size: int = 4096
    learning_rate: float = 1e-3
    # With init (a network that already plays) each round fine-tunes instead: the search's sure
    # changes of move are learned with this weight, and elsewhere the network keeps its own play.
    change_weight: float = 1.0
    # What the network learns: "choice", the search's move (above), or "gains", every legal
    # move's worth: its logits, centred over the legal moves, regressed on the search's
    # estimated gains over the base move (points / gain_scale), the base move given base_bonus
    # points. The network then leaves the base move only where it expects more than
    # base_bonus points, however many moves the search was unsure of (learn_z plays no part).
    objective: str = "choice"
    gain_scale: float = 10.0
    base_bonus: float = 0.0
    ppo_steps: int = 0  # PPO self-play steps after each round's distillation (0: none)

    def round_chunks(self, round_: int) -> list[int]:
        """The chunks round ``round_`` (from 1) labels and learns from."""
        return chunk_numbers(_of_round(self.chunks, round_))

    def round_epochs(self, round_: int) -> int:
        """How many epochs round ``round_`` (from 1) distils."""
        return _of_round(self.epochs, round_)


def _of_round(value: Any, round_: int) -> Any:
    """A per-round setting's value in round ``round_``: the list's entry, or its last one."""
    if not isinstance(value, list):
        return value
    return value[min(round_, len(value)) - 1]


CHUNK_RANGES = "FIRST:STOP ranges in order and apart, e.g. 0:44,100:126 (chunks 0-43, 100-125)"


def chunk_numbers(spec: int | str) -> list[int]:
    """The chunks ``spec`` names: a count N (chunks 0 to N-1), or ``FIRST:STOP`` ranges joined
    by commas (``"0:44,100:126"``), each from 0 up, in order and not overlapping; ValueError
    naming the two forms otherwise."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 1:
            raise ValueError(f"a count of chunks must be >= 1, not {spec}")
        return list(range(spec))
    chunks: list[int] = []
    for part in str(spec).split(","):
        first, colon, stop = part.strip().partition(":")
        try:
            span = range(int(first), int(stop))
        except ValueError:
            span = None
        overlaps = bool(chunks) and span is not None and span.start <= chunks[-1]
        if not colon or span is None or span.start < 0 or not span or overlaps:
            raise ValueError(f"chunks are a count or {CHUNK_RANGES}; not {spec!r}")
        chunks += span
    return chunks


MODES = ("ppo", "expert")
OBJECTIVES = ("choice", "gains")  # expert.objective: what a round's network learns
# The keys each mode never reads: given, they are refused rather than silently dropped.
UNREAD = {"ppo": ("expert",), "expert": ("warm_start", "total_steps")}


@dataclass
class TrainConfig:
    # "ppo": the warm start, then self-play PPO (train/ppo.py); "expert": expert iteration
    # (train/expert.py, the expert section), its network refined by PPO if expert.ppo_steps
    mode: str = "ppo"
    run_name: str = "default"
    runs_dir: str = "runs"
    preset: str = "crates"
    num_players: int = 4
    rules: dict[str, Any] = field(default_factory=dict)
    # A YAML file declaring house rules (docs/variants.md), relative to the working folder: its
    # rule systems are played as ``preset``. Empty: the shipped ones only.
    rules_file: str = ""
    reward_mode: str = "relative"
    reward_scale: float = 0.01
    # "event": a shuffle pressure is rewarded on the step it is taken (the cards at the end of
    # the hand), so PPO credits the move that caused it; "hand": everything at the hand's end.
    reward_timing: str = "hand"
    # Charge each shuffle pressure, on the spot, its expected cost to the rest of the game (every
    # later pressure of the side doubles): potential-based shaping, train/shaping.py. The
    # expected counts come from pressure_shaping_games games of HeuristicAgent, measured once.
    pressure_shaping: bool = False
    pressure_shaping_games: int = 300
    # Pressures double, so one game's points can run into the millions: "symlog" trains on
    # sign(r) * log(1 + |r|) of each reward (evaluation always counts raw points).
    reward_transform: str = "none"
    # Pay the learner as the bar scores it (train/duplicate.py): nothing during a game and, at
    # its end, +1 / 0 / -1 as its side stood better than, level with or worse than the same side
    # of the same deal played by HeuristicAgent at every seat (reward_mode and reward_scale are
    # then not read). Its opponents are HeuristicAgent alone.
    duplicate_reward: bool = False
    # The environment's rewards less, hand by hand, what the learner's side was paid for the same
    # hands of the same deal played by HeuristicAgent at every seat (train/duplicate.py): the
    # cards' luck taken out of each hand's pay, reward_transform applied after. Its opponents
    # are HeuristicAgent alone; only at tables whose games have a fixed number of hands.
    duplicate_hands: bool = False
    one_card: str = "auto"
    # The layout the learner reads: "seat" (its table's own vector) or "table" (one size at
    # every table, with what the table is at the end: docs/env.md), which ``tables`` needs.
    observation: str = "seat"
    # A mixture of tables in one run: "crates:4", "zimbabwe:3", ... or "covered" (the 28 tables
    # users set, crates_env.table_observation.COVERED_TABLES), each given an equal share of
    # num_envs (its own games, opponents and checks); ``rules`` apply at every one. Empty: the
    # one table of preset and num_players.
    tables: list[str] = field(default_factory=list)
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    # The critic also reads the hidden cards (other hands, the stock): an asymmetric
    # actor-critic. The policy still plays from the public observation only.
    privileged_critic: bool = False
    # One-hot views of the small counts (stock, discard pile, pending draw, count, hand sizes)
    # beside the observation (agents.networks.CountsExtractor). A network without them starts
    # a run with them (init) playing as it did: their weights start at zero.
    count_features: bool = False
    num_envs: int = 64
    # Game worker processes (0: games run in the training process). The cores left over go to
    # torch, whose PPO updates take most of a run on few cores (figures: docs/experiments).
    workers: int = 0
    # torch's threads for the learner's updates (PPO's and the warm start's). A fixed number makes
    # the run bit-for-bit the same from its config and seed whatever else the machine runs (float
    # sums come out in another order on another number of threads); 0 follows the machine's load,
    # the cores left free before each update (crates_env.processes.CoreShare), and gives up that
    # guarantee. The games and the checks against the baselines always run on one thread.
    torch_threads: int = 1
    # The engine the self-play games run on: "auto" takes the compiled one (crates_env.vector,
    # which the differential tests hold to the reference) wherever it plays the table, "vector"
    # insists on it, "reference" keeps the Python engine.
    engine: str = "auto"
    seed: int = 0
    total_steps: int = 600_000
    checkpoint_every: int = 200_000
    progress_bar: bool = True
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: BaselineChecks = field(default_factory=BaselineChecks)
    # WarmStartConfig() alone is no warm start; the main job clones HeuristicAgent
    warm_start: WarmStartConfig = field(
        default_factory=lambda: WarmStartConfig(teacher="heuristic", games=300)
    )
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    # A checkpoint (agents.checkpoints) whose weights start a new run instead of a fresh
    # network: a config that gives init and no warm_start.teacher clones no teacher there (only
    # warm_start.teachers, if given); one that names both is refused unless warm_start.teachers
    # maps networks to clone into init's (distillation into a common ancestor); expert
    # iteration's PPO refinement starts from each round's network. "shipped" is the network
    # the package ships for this table.
    init: str = ""
    # A network remembers the table it learned at (agents.checkpoints) and init refuses one of
    # another table unless this says so: a kreights network may start from the crates one
    # (where the layers' shapes fit), but never by accident. Expert iteration's first search
    # then looks ahead from that network at this table too (its base, the search's other_table).
    init_other_table: bool = False

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.run_name

    def ruleset(self) -> Ruleset:
        """The table's rules (ValueError for a bad preset, player count or rule)."""
        return rules_of(self.preset, self.num_players, self.rules)

    def rulesets(self) -> list[Ruleset]:
        """The rules of every table the run plays (``played_tables``), in order."""
        return [rules_of(preset, n, self.rules) for preset, n in self.played_tables()]

    def env_kwargs(self) -> dict[str, Any]:
        """The environment of the run's table (the first of a mixture)."""
        return self.table_kwargs()[0]

    def played_tables(self) -> list[tuple[str, int]]:
        """The (preset, players) of every table the run plays, in order."""
        if not self.tables:
            return [(self.preset, self.num_players)]
        return [table for name in self.tables for table in table_names(name)]

    def table_kwargs(self) -> list[dict[str, Any]]:
        """The environment of every table the run plays (``played_tables``). The seat layout
        is the environment's default and goes unsaid, so the settings that demonstrations and
        labels are checked against read as they did before the table layout existed."""
        layout = {} if self.observation == "seat" else {"observation": self.observation}
        return [
            {
                "preset": preset,
                "num_players": players,
                "reward_mode": self.reward_mode,
                "reward_scale": self.reward_scale,
                "reward_timing": self.reward_timing,
                "one_card": self.one_card,
                **layout,
                **self.rules,
            }
            for preset, players in self.played_tables()
        ]

    def at_table(self, preset: str, num_players: int) -> TrainConfig:
        """This config at one table of its mixture (its checks are played table by table)."""
        return dataclasses.replace(self, preset=preset, num_players=num_players, tables=[])

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def save(self) -> None:
        """The run's config.json (what ``crates curves`` reads the table from), and the code
        running it added to the run's provenance.json (``train.files.record_provenance``)."""
        from train.files import atomic_write, record_provenance

        atomic_write(self.run_dir / "config.json", json.dumps(self.as_dict(), indent=2))
        record_provenance(self.run_dir)


def check_run_folder(checkpoint: Path, resume: bool) -> None:
    """``--resume`` needs the run's checkpoint (a file or a folder); a fresh run never writes
    over one."""
    if resume and not checkpoint.exists():
        raise ValueError(f"no checkpoint at {checkpoint} to resume from")
    if not resume and checkpoint.exists():
        raise ValueError(
            f"run {checkpoint.parent} already has a checkpoint ({checkpoint.name}): resume it "
            "with --resume or pick another run_name"
        )


COVERED = "covered"  # tables: every covered table


def table_names(name: Any) -> list[tuple[str, int]]:
    """The tables an entry of ``tables`` names: ``"crates:4"``, or ``"covered"`` for all 28; a
    ValueError naming the forms otherwise."""
    if name == COVERED:
        return list(COVERED_TABLES)
    _, sep, players = str(name).partition(":")
    if not isinstance(name, str) or not sep or not players.isdigit():
        raise ValueError(
            f"tables names {name!r}; give preset:players (e.g. crates:4, zimbabwe:3) or "
            f"{COVERED} (the {len(COVERED_TABLES)} tables users set)"
        )
    return [table_of(name)]


def rules_of(preset: Any, num_players: Any, options: dict[str, Any]) -> Ruleset:
    """``make_ruleset``, refusing a preset or a player count among the options (they have
    keys of their own)."""
    for key in ("preset", "num_players"):
        if key in options:
            raise ValueError(f"rules: {key} is not a rule option; set it as {key} on its own")
    return make_ruleset(preset, num_players, **options)


@dataclass(frozen=True)
class Range:
    """The values a numeric config key may take: from ``low`` (itself excluded when
    ``above``) to ``high``, finite."""

    low: float
    high: float = math.inf
    above: bool = False  # the key must be greater than low (a rate, a clip range)

    def holds(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        return (value > self.low if self.above else value >= self.low) and value <= self.high

    def __str__(self) -> str:
        if self.high < math.inf:
            return f"from {self.low:g} to {self.high:g}"
        return f"{'>' if self.above else '>='} {self.low:g}"


POSITIVE, COUNT, SOME = Range(0, above=True), Range(1), Range(0)
# Every numeric key and its range, checked before anything starts (a test holds this table to
# the dataclasses above, so a new key cannot slip through).
RANGES: dict[str, Range] = {
    "num_players": Range(2, 12),  # the preset narrows it further
    "reward_scale": POSITIVE,
    "pressure_shaping_games": COUNT,
    "num_envs": COUNT,
    "workers": SOME,
    "torch_threads": SOME,
    "seed": SOME,
    "total_steps": SOME,  # 0: the warm start is the run (a distillation's clone)
    "checkpoint_every": COUNT,
    "ppo.learning_rate": POSITIVE,
    "ppo.n_steps": COUNT,
    "ppo.batch_size": COUNT,
    "ppo.n_epochs": COUNT,
    "ppo.gamma": Range(0, 1),
    "ppo.gae_lambda": Range(0, 1),
    "ppo.clip_range": POSITIVE,
    "ppo.ent_coef": SOME,
    "ppo.vf_coef": SOME,
    "ppo.max_grad_norm": POSITIVE,
    "opponents.snapshot_weight": SOME,
    "opponents.snapshot_every": COUNT,
    "opponents.max_snapshots": COUNT,
    "eval.every": COUNT,
    "eval.deals": COUNT,
    "eval.final_deals": COUNT,
    "eval.seed": SOME,
    "eval.replays": SOME,
    "warm_start.games": COUNT,
    "warm_start.workers": COUNT,
    "warm_start.epochs": COUNT,
    "warm_start.batch_size": COUNT,
    "warm_start.learning_rate": POSITIVE,
    "warm_start.search_samples": COUNT,
    "warm_start.search_stock_max": SOME,
    "warm_start.search_z": SOME,
    "expert.rounds": SOME,
    "expert.samples": COUNT,
    "expert.stock_max": SOME,
    "expert.z": SOME,
    "expert.deepen": SOME,
    "expert.deepen_at": SOME,
    "expert.min_redeals": COUNT,
    "expert.learn_z": SOME,
    "expert.chunks": COUNT,  # or chunk ranges (CHUNK_KEYS)
    "expert.games_per_chunk": COUNT,
    "expert.workers": COUNT,
    "expert.holdout": Range(0, 0.5),
    "expert.epochs": COUNT,
    "expert.batch_size": COUNT,
    "expert.learning_rate": POSITIVE,
    "expert.change_weight": POSITIVE,
    "expert.gain_scale": POSITIVE,
    "expert.base_bonus": SOME,
    "expert.ppo_steps": SOME,
}


def config_value(config: TrainConfig, key: str) -> Any:
    """The value of a dotted key (``ppo.gamma``)."""
    value: Any = config
    for part in key.split("."):
        value = getattr(value, part)
    return value


def load_config(path: str | Path | None = None, overrides: list[str] = ()) -> TrainConfig:
    """Read ``path`` (YAML), apply ``key.sub=value`` overrides, validate; ValueError if bad."""
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"config file {path} is a folder; give a YAML file")
        if not path.exists():
            raise ValueError(f"config file {path} does not exist")
        if not path.is_file():
            raise ValueError(f"config file {path} is not a regular file; give a YAML file")
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            raise ValueError(f"config file {path} is not text; give a YAML file") from None
        loaded = read_yaml(text, f"config file {path}") or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"config file {path} must hold a mapping of keys to values")
        data = loaded
    for item in overrides:
        key, sep, value = item.partition("=")
        keys = key.strip().split(".")
        if not sep or not all(keys):
            raise ValueError(f"override {item!r} must look like key=value (e.g. ppo.n_epochs=8)")
        _set_path(data, keys, read_yaml(value, f"--set {item}"))
    config = _build(TrainConfig(), data, "")
    if config.rules_file:
        register_rules_file(config.rules_file)
    given = _given(data)
    if config.init and "warm_start.teacher" not in given:  # init starts the network instead
        config.warm_start = dataclasses.replace(config.warm_start, teacher="")
    _check_values(config)
    _check_mode(config, given)
    return config


# keys whose value is a mapping of the user's, not a section of keys
MAPPINGS = ("rules", "scripted", "teachers")


def _given(data: dict[str, Any], prefix: str = "") -> list[str]:
    """The dotted keys a config's data sets (a section's keys, not the section)."""
    keys = []
    for name, value in data.items():
        if isinstance(value, dict) and name not in MAPPINGS:
            keys += _given(value, f"{prefix}{name}.") or [prefix + name]
        else:
            keys.append(prefix + name)
    return keys


def _check_mode(c: TrainConfig, given: list[str]) -> None:
    """The mode is one of ``MODES``, and the config gives no key that mode never reads."""
    if c.mode not in MODES:
        raise ValueError(f"mode {c.mode!r} is not one of {', '.join(MODES)}")
    unread = [k for k in given if any(k == u or k.startswith(u + ".") for u in UNREAD[c.mode])]
    if unread:
        other = next(m for m in MODES if m != c.mode)
        raise ValueError(
            f"mode {c.mode} does not read {', '.join(unread)}: remove them, or set mode: {other}"
        )
    if c.mode == "expert" and c.expert.rounds < 1:
        raise ValueError("mode expert needs expert.rounds >= 1 (the rounds to run)")


class _Loader(yaml.SafeLoader):
    """``yaml.safe_load``'s reading but for YAML 1.1's base-60 numbers: ``1:30`` stays the
    text it is, as YAML 1.2 reads it (chunk ranges: ``expert.chunks=1:30`` is not 90)."""


def _number_or_text(tag: str):
    construct = yaml.SafeLoader.yaml_constructors[tag]
    return lambda loader, node: node.value if ":" in node.value else construct(loader, node)


for _tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
    _Loader.add_constructor(_tag, _number_or_text(_tag))


def read_yaml(text: str, where: str) -> Any:
    """YAML ``text``; a ValueError naming ``where`` and the first problem if it is not YAML."""
    try:
        return yaml.load(text, _Loader)  # a SafeLoader: builds no Python objects
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise ValueError(f"{where} is not valid YAML: {problem}{at}") from None


def _set_path(data: dict, keys: list[str], value: Any) -> None:
    for key in keys[:-1]:
        data = data.setdefault(key, {})
        if not isinstance(data, dict):
            raise ValueError(f"cannot set {'.'.join(keys)}: {key} is not a section")
    data[keys[-1]] = value


def _build(defaults, data: dict[str, Any], prefix: str):
    """``defaults`` (a config dataclass) with the values ``data`` gives, each checked."""
    if not isinstance(data, dict):
        raise ValueError(f"{prefix.rstrip('.') or 'config'} must be a mapping, not {data!r}")
    fields = {f.name: f for f in dataclasses.fields(defaults)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(
            f"unknown config key(s) {', '.join(prefix + k for k in unknown)}; valid keys "
            f"{'in ' + prefix.rstrip('.') if prefix else 'at the top level'}: "
            + ", ".join(sorted(fields))
        )
    values = {}
    for name, value in data.items():
        default = getattr(defaults, name)
        if dataclasses.is_dataclass(default):
            values[name] = _build(default, value, f"{prefix}{name}.")
        else:
            values[name] = _coerce(value, default, prefix + name)
    return dataclasses.replace(defaults, **values)


# Integer keys that also take a list of ints, one per round.
PER_ROUND = {"expert.chunks", "expert.epochs"}
# Keys that also take chunk ranges ("0:44,100:126"), as their value or a round's entry.
CHUNK_KEYS = {"expert.chunks"}
# Float keys that also take null (nothing): expert.learn_z's is the search's own z.
OPTIONAL_FLOATS = {"expert.learn_z"}
# Stock sizes a search looks ahead from, which also take "all" (from the first move).
STOCK_SIZES = {"expert.stock_max", "warm_start.search_stock_max"}
EXPONENT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def _coerce(value: Any, default: Any, key: str) -> Any:
    """Accept ``value`` if it has the default's type (ints pass as floats)."""
    if key in OPTIONAL_FLOATS:
        if value is None:
            return None
        default = 0.0
    if isinstance(default, float) and isinstance(value, str) and EXPONENT.fullmatch(value):
        value = float(value)  # YAML 1.1 reads 3e-5 (no dot) as a string
    if isinstance(default, str) and value is None:
        value = ""  # `--set warm_start.teacher=`: YAML reads nothing as null
    if key == "tables" and isinstance(value, str):
        value = [value]  # tables: covered
    if key in STOCK_SIZES and value == "all":
        from agents.search import EVERYWHERE

        value = EVERYWHERE
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(default))
    ranges = key in CHUNK_KEYS

    def entry(v: Any) -> bool:
        return (isinstance(v, int) and not isinstance(v, bool)) or (ranges and isinstance(v, str))

    if not ok and ranges and isinstance(value, str):
        ok = True  # the ranges are read when the config is checked
    if not ok and key in PER_ROUND and isinstance(value, list) and value:
        ok = all(map(entry, value))
    if not ok:
        kind = type(default).__name__ + (" or chunk ranges" if ranges else "")
        kind += " or a list of those, one a round" if key in PER_ROUND else ""
        raise ValueError(f"config key {key} must be a {kind}, not {value!r}")
    return value


def _check_opponents_are_baseline(c: TrainConfig, key: str) -> None:
    """``key`` compares the learner with the baseline in the same deal: it plays it alone."""
    from train.duplicate import BASELINE

    scripted = {name for name, weight in c.opponents.scripted.items() if weight}
    if scripted != {BASELINE} or c.opponents.snapshot_weight > 0:
        raise ValueError(
            f"{key}: true compares the learner with {BASELINE} in the same deal, so "
            f"it plays {BASELINE} alone: set opponents.scripted: {{{BASELINE}: 1.0}} and "
            "opponents.snapshot_weight: 0"
        )


def _check_duplicate(c: TrainConfig) -> None:
    """``duplicate_reward``: the learner meets the baseline's own agents (HeuristicAgent alone)
    and is paid the comparison itself, untransformed and unshaped."""
    _check_opponents_are_baseline(c, "duplicate_reward")
    switches = {
        "mode: expert": c.mode == "expert",
        f"reward_transform: {c.reward_transform}": c.reward_transform != "none",
        "pressure_shaping": c.pressure_shaping,
        "privileged_critic": c.privileged_critic,
    }
    _refuse_any(
        switches,
        "duplicate_reward: true does not go with {} (it pays the comparison itself): "
        "leave them out",
    )


def _check_duplicate_hands(c: TrainConfig, rules) -> None:
    """``duplicate_hands``: the baseline's own opponents, and hands that match one for one."""
    from train.duplicate import BASELINE

    _check_opponents_are_baseline(c, "duplicate_hands")
    if rules.num_hands is None:
        raise ValueError(
            "duplicate_hands: true needs a game of a fixed number of hands, and "
            f"{c.preset} ends on a score ({rules.game_end}): a game's length would move what "
            "is taken off"
        )
    _refuse_any(
        {
            "duplicate_reward": c.duplicate_reward,
            "mode: expert": c.mode == "expert",
            "pressure_shaping": c.pressure_shaping,
            "privileged_critic": c.privileged_critic,
            "tables": bool(c.tables),
        },
        f"duplicate_hands: true does not go with {{}} (it compares with {BASELINE}'s pay for "
        "the same hands of one table): leave them out",
    )


def _refuse_any(switches: dict[str, bool], message: str) -> None:
    """A ValueError of ``message`` (``{}``: the names of the settings that are on) if any is."""
    given = [name for name, on in switches.items() if on]
    if given:
        raise ValueError(message.format(", ".join(given)))


def _check_values(c: TrainConfig) -> None:
    rules = c.ruleset()  # raises for bad rules
    _check_tables(c)
    if c.reward_transform not in ("none", "symlog"):
        raise ValueError(f"reward_transform {c.reward_transform!r} is not one of none, symlog")
    if c.reward_mode not in REWARD_MODES:
        raise ValueError(f"reward_mode {c.reward_mode!r} is not one of {', '.join(REWARD_MODES)}")
    if c.reward_timing not in REWARD_TIMINGS:
        raise ValueError(
            f"reward_timing {c.reward_timing!r} is not one of {', '.join(REWARD_TIMINGS)}"
        )
    from crates_env.engine_choice import ENGINES
    from train.selfplay import vector_refusal

    if c.engine not in ENGINES:
        raise ValueError(f"engine {c.engine!r} is not one of {', '.join(ENGINES)}")
    if c.engine == "vector":
        searching = "search" in c.opponents.scripted
        why = vector_refusal(c.env_kwargs(), c.pressure_shaping, c.privileged_critic, searching)
        if why:
            raise ValueError(f"engine 'vector' cannot train this run: {why}")
    if c.pressure_shaping:
        from train.shaping import check_shapeable

        check_shapeable(rules, c.reward_mode)
        if c.reward_transform != "none":
            raise ValueError(
                "pressure_shaping needs reward_transform: none (the shaping is exact only on "
                "the rewards themselves)"
            )
    if c.duplicate_reward:
        _check_duplicate(c)
    if c.duplicate_hands:
        _check_duplicate_hands(c, rules)
    for key, allowed in RANGES.items():
        value = config_value(c, key)
        values = value if isinstance(value, list) else [] if value is None else [value]
        try:
            for ranges in (v for v in values if isinstance(v, str)):  # CHUNK_KEYS' other form
                chunk_numbers(ranges)
        except ValueError:
            raise ValueError(
                f"config key {key} must be {allowed} or {CHUNK_RANGES}, not {value!r}"
            ) from None
        if not all(allowed.holds(v) for v in values if not isinstance(v, str)):
            raise ValueError(f"config key {key} must be {allowed}, not {value!r}")
    if c.count_features and c.privileged_critic:
        raise ValueError(
            "count_features and privileged_critic do not go together yet (the actor of the "
            "privileged critic reads only the observation): set one of them to false"
        )
    widths = all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in c.net_arch)
    if not c.net_arch or not widths:
        raise ValueError(f"config key net_arch must be a list of layer widths, not {c.net_arch}")
    _check_run_name(c.run_name)
    _check_memory(c, rules)
    from train.evaluation.games import check_deals

    for key in ("eval.deals", "eval.final_deals"):  # the learner against one baseline at a time
        check_deals(config_value(c, key), 2, c.num_players, f"config key {key}")
    from agents import AGENT_NAMES

    for name, weight in c.opponents.scripted.items():
        if name not in AGENT_NAMES:
            raise ValueError(f"opponents.scripted names {name!r}; valid: {', '.join(AGENT_NAMES)}")
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not SOME.holds(weight)
        ):
            raise ValueError(f"opponents.scripted.{name} must be a weight >= 0, not {weight!r}")
    if not c.opponents.scripted and c.opponents.snapshot_weight <= 0:
        raise ValueError("the opponent pool is empty: give opponents.scripted or snapshot_weight")
    if c.warm_start.teacher and c.warm_start.teacher not in AGENT_NAMES:
        raise ValueError(
            f"warm_start.teacher names {c.warm_start.teacher!r}; valid: "
            f'{", ".join(AGENT_NAMES)}, or "" for no warm start'
        )
    ws = c.warm_start
    if ws.teacher == "search" and ws.search_z > 0 and ws.search_samples < 2:
        raise ValueError(
            "warm_start.search_z > 0 needs warm_start.search_samples >= 2 (a standard error of "
            "the gain); set search_z: 0 to search with one re-deal"
        )
    if c.warm_start.opponent not in AGENT_NAMES:
        raise ValueError(
            f"warm_start.opponent names {c.warm_start.opponent!r}; valid: {', '.join(AGENT_NAMES)}"
        )
    if c.init and c.init != "shipped" and not Path(c.init).is_file():
        raise ValueError(f"init must be shipped or a checkpoint file, not {c.init!r}")
    if c.init_other_table and not c.init:
        raise ValueError("init_other_table: true needs init, the network to start from")
    if c.init and c.warm_start.teacher and not c.warm_start.teachers:
        # a teacher alone would overwrite init's play with its own: distilling networks into
        # init's (warm_start.teachers) is the one reason to give both
        raise ValueError(
            "init and warm_start.teacher both start the network: give one of them (or "
            "warm_start.teachers too, to distil those networks into init's)"
        )
    _check_teachers(c)
    if c.mode == "ppo" and c.total_steps == 0 and not c.warm_start.teaches():
        raise ValueError(
            "total_steps is 0 and no warm start teaches the network: a run of no steps is "
            "its warm start's clone (name warm_start.teacher or warm_start.teachers), or give "
            "total_steps >= 1"
        )
    _check_expert(c)
    for name in c.eval.baselines:
        if name not in AGENT_NAMES:
            raise ValueError(f"eval.baselines names {name!r}; valid: {', '.join(AGENT_NAMES)}")


def _check_tables(c: TrainConfig) -> None:
    """The layout and the mixture: tables that exist, each once, read in one layout, by a run
    that can play them side by side."""
    check_observation(c.observation)
    tables = c.played_tables()
    for preset, players in tables:
        rules_of(preset, players, c.rules)  # raises for a table that does not exist
    repeated = sorted({table_key(*t) for t in tables if tables.count(t) > 1})
    if repeated:
        raise ValueError(f"tables names {', '.join(repeated)} more than once")
    if len(tables) < 2:
        return
    if c.observation != "table":
        raise ValueError(
            f"a mixture of {len(tables)} tables needs observation: table (one layout every "
            f"table writes), not {c.observation!r}"
        )
    switches = {
        "mode: expert": c.mode == "expert",
        "count_features": c.count_features,
        "privileged_critic": c.privileged_critic,
        "pressure_shaping": c.pressure_shaping,
    }
    _refuse_any(
        switches,
        "a mixture of tables does not go with {} yet: train one table, or leave them out",
    )
    if c.num_envs < len(tables):
        raise ValueError(
            f"num_envs {c.num_envs} is fewer than the {len(tables)} tables of the mixture: each "
            "table needs a game slot"
        )
    from agents import AGENT_NAMES
    from agents.shipped import SHIPPED, has_shipped_network

    ws = c.warm_start
    if ws.fallback and ws.fallback not in AGENT_NAMES:
        raise ValueError(
            f"warm_start.fallback names {ws.fallback!r}; valid: {', '.join(AGENT_NAMES)}"
        )
    if ws.teacher == SHIPPED and not ws.fallback:
        bare = [
            table_key(*t)
            for t in tables
            if table_key(*t) not in ws.teachers and not has_shipped_network(rules_of(*t, c.rules))
        ]
        if bare:
            raise ValueError(
                f"warm_start.teacher shipped has no network at {', '.join(bare)}: give "
                "warm_start.fallback (the teacher there, e.g. heuristic)"
            )


def _check_teachers(c: TrainConfig) -> None:
    """``warm_start.teachers``: tables of the run, each taught by an agent's name or the path
    of a checkpoint that learned it (read as ``PolicyAgent`` reads it to play there)."""
    teachers = c.warm_start.teachers
    if not teachers:
        return
    from agents import AGENT_NAMES, PolicyAgent, Table
    from agents.checkpoints import TableRecord, read_checkpoint
    from agents.shipped import SHIPPED, has_shipped_network

    tables = {table_key(*t): t for t in c.played_tables()}
    for key, teacher in teachers.items():
        where = f"warm_start.teachers.{key}"
        if key not in tables:
            raise ValueError(
                f"warm_start.teachers names {key!r}, which is not a table of this run; its "
                f"tables: {', '.join(tables)}"
            )
        names = f"an agent ({', '.join(AGENT_NAMES)}) or the path of a checkpoint (.zip)"
        if not isinstance(teacher, str) or not teacher:
            raise ValueError(f"{where} must be {names}, not {teacher!r}")
        rules = rules_of(*tables[key], c.rules)
        if teacher == SHIPPED and not has_shipped_network(rules):
            raise ValueError(f"{where} is shipped, and the package has no network at {key}")
        if teacher in AGENT_NAMES:
            continue
        if not Path(teacher).is_file():
            raise ValueError(f"{where} names {teacher!r}: no such file, and not {names}")
        try:
            learned = read_checkpoint(teacher).mismatch(TableRecord.of(rules))
            if learned:
                raise ValueError(f"{teacher}: {learned}; a teacher teaches only a table it learned")
            PolicyAgent(teacher, table=Table.from_rules(rules))  # it reads this table's games
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None


def _check_run_name(name: str) -> None:
    """The run's folder is ``runs_dir/run_name``: a name, so that it is a folder inside
    runs_dir (``..``, ``""`` or a path would write the run's files elsewhere)."""
    if name in ("", ".", "..") or Path(name).name != name or "\0" in name:
        raise ValueError(
            f"config key run_name must be a folder name inside runs_dir (no '/', not '.' or "
            f"'..'), not {name!r}"
        )


# What the memory checks count (they refuse what could never fit, before anything is
# allocated; the learner's process holds the rest besides):
# a step of SB3's rollout buffer holds, in float32, the observation, the action mask and these
# (action, reward, return, episode start, value, log-probability, advantage)
ROLLOUT_SCALARS = 7
# a network weight takes itself, its gradient and Adam's two moments, in float32
BYTES_A_WEIGHT = 16


def _check_memory(c: TrainConfig, rules: Ruleset) -> None:
    """``num_envs`` and ``net_arch`` within what this machine's memory holds, as
    ``VectorGame`` checks its batch: a game (the reference engine's, the larger) and its
    rollout of ``ppo.n_steps`` steps an environment, and the actor's and the critic's weights
    (networks of ``net_arch`` each, over the observation, the hidden cards too with the
    privileged critic)."""
    memory = machine_memory()
    observer = make_observer(rules, c.observation)
    inputs = observer.size + (observer.hidden_size if c.privileged_critic else 0)
    step = 4 * (inputs + NUM_ACTIONS + ROLLOUT_SCALARS)
    per_env = ReferenceGames.BYTES_A_GAME + c.ppo.n_steps * step
    most = max(1, memory // per_env)
    if c.num_envs > most:
        raise ValueError(
            f"config key num_envs must be from 1 to {most:,} (what this machine's memory holds "
            f"of games, {per_env:,} bytes each with their rollout), not {c.num_envs:,}"
        )
    weights = sum(_weights([inputs, *c.net_arch, out]) for out in (NUM_ACTIONS, 1))
    most = memory // BYTES_A_WEIGHT
    if weights > most:
        raise ValueError(
            f"config key net_arch {c.net_arch} makes an actor and a critic of {weights:,} "
            f"weights; this machine's memory holds {most:,} ({BYTES_A_WEIGHT} bytes each, "
            "with their gradients and the optimizer's moments)"
        )


def _weights(layers: list[int]) -> int:
    """The weights and biases of a stack of fully connected layers of these widths."""
    return sum((a + 1) * b for a, b in pairwise(layers))


def _check_expert(c: TrainConfig) -> None:
    ex = c.expert
    if not ex.rounds:
        return
    from agents import AGENT_NAMES

    if ex.opponent not in AGENT_NAMES:
        raise ValueError(f"expert.opponent names {ex.opponent!r}; valid: {', '.join(AGENT_NAMES)}")
    if ex.base not in ("heuristic", "shipped") and not Path(ex.base).is_file():
        raise ValueError(
            f"expert.base must be heuristic, shipped or a checkpoint file, not {ex.base!r}"
        )
    if ex.deepen_on not in ("spread", "gain"):
        raise ValueError(f"expert.deepen_on must be spread or gain, not {ex.deepen_on!r}")
    if ex.objective not in OBJECTIVES:
        raise ValueError(
            f"expert.objective must be one of {', '.join(OBJECTIVES)}, not {ex.objective!r}"
        )
    if ex.deepen and ex.deepen_on == "gain" and not ex.z:
        raise ValueError("expert.deepen_on: gain needs expert.z > 0 (the gain it must be sure of)")
    if ex.z > 0 and ex.samples < 2:
        raise ValueError("expert.z > 0 needs expert.samples >= 2 (a standard error of the gain)")
    if c.reward_transform != "none":
        raise ValueError(
            "expert iteration needs reward_transform: none (the labels' returns are the "
            "environment's rewards)"
        )
    if c.privileged_critic or c.pressure_shaping:
        raise ValueError(
            "expert iteration does not take privileged_critic or pressure_shaping (the labels "
            "hold the public observation and the environment's rewards)"
        )
