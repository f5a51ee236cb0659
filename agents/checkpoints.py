"""The table a trained network learned at, written into its checkpoint.

A network reads its inputs by position and learned one rule system's card functions and
scoring. Every table of a player count has an observation of the same size, so a 4-player crates
network fits a 4-player crazy_eights table and would play there, a game it never learned. A
checkpoint (sb3-contrib MaskablePPO's zip) therefore carries one more file, ``crates_table.json``:
the preset, the players, the rule options that differ from the preset's defaults, and the
observation layout's version (``crates_env.observation.LAYOUT_VERSION``). ``PolicyAgent`` refuses
a network at another table by name; training starts from another table's network only when the
config asks for it (``init_other_table``). The options that only set the length of a game and
who deals first (``crates_env.rules.SCHEDULE_OPTIONS``: a shorter ``deal_schedule`` for a quick
check, say) are recorded apart, as ``schedule``, and do not make another table. A checkpoint
written before the record existed carries none and is checked by its observation size alone.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from crates_env.observation import LAYOUT_VERSION
from crates_env.rules import SCHEDULE_OPTIONS, Ruleset

TABLE_FILE = "crates_table.json"


@dataclass(frozen=True)
class TableRecord:
    """What a network learned at: the rules everybody agreed on and the layout it reads."""

    preset: str
    num_players: int
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    layout_version: int = LAYOUT_VERSION
    # the length of the game and the first dealer it learned with (not part of the table)
    schedule: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def of(cls, rules: Ruleset) -> TableRecord:
        """The record of a table's rules, at this package's observation layout."""
        options = json.loads(json.dumps(rules.options(), sort_keys=True))  # tuples as lists
        schedule = {k: options.pop(k) for k in sorted(SCHEDULE_OPTIONS & options.keys())}
        return cls(rules.preset, rules.num_players, options, schedule=schedule)

    def __str__(self) -> str:
        """``4-player crates``, with its options after a colon when it has any."""
        name = f"{self.num_players}-player {self.preset}"
        if self.options:
            name += " (" + ", ".join(f"{k}={v}" for k, v in sorted(self.options.items())) + ")"
        return name

    def to_json(self) -> str:
        return json.dumps(
            {
                "preset": self.preset,
                "num_players": self.num_players,
                "options": self.options,
                "layout_version": self.layout_version,
                "schedule": self.schedule,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> TableRecord:
        data = json.loads(text)
        return cls(
            str(data["preset"]),
            int(data["num_players"]),
            dict(data["options"]),
            int(data["layout_version"]),
            dict(data.get("schedule", {})),
        )

    def mismatch(self, other: TableRecord) -> str:
        """Empty if a network of this table plays at ``other``; else what differs, in words."""
        if (self.preset, self.num_players, self.options) != (
            other.preset,
            other.num_players,
            other.options,
        ):
            return f"it learned {self}, and this table is {other}"
        if self.layout_version != other.layout_version:
            return (
                f"it reads observation layout {self.layout_version}, and this package "
                f"writes layout {other.layout_version}"
            )
        return ""


def check_table(path: str | Path, table: TableRecord, other_table: bool = False) -> None:
    """ValueError unless the network at ``path`` learned at ``table`` (or records no table).
    ``other_table``: another table's network is wanted here (a start to learn this table from),
    so only the observation layout it reads must be this package's."""
    learned = read_table(path)
    if learned is not None and other_table:
        learned = replace(table, layout_version=learned.layout_version)
    problem = "" if learned is None else learned.mismatch(table)
    if problem:
        raise ValueError(
            f"{path}: {problem}; a network plays only at the table it learned (to start a "
            f"network for this table from it, train with init: {path} and "
            "init_other_table: true)"
        )


def write_table(path: str | Path, record: TableRecord) -> None:
    """Add (or replace) ``record`` in the checkpoint zip at ``path``."""
    path = Path(path)
    with zipfile.ZipFile(path) as old:
        entries = [(i, old.read(i)) for i in old.infolist() if i.filename != TABLE_FILE]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in entries:
            new.writestr(info, data)
        new.writestr(TABLE_FILE, record.to_json())


def read_table(path: str | Path) -> TableRecord | None:
    """The table recorded in the checkpoint at ``path`` (None for a checkpoint without one);
    ValueError naming the file if the record is unreadable."""
    try:
        with zipfile.ZipFile(path) as archive:
            if TABLE_FILE not in archive.namelist():
                return None
            text = archive.read(TABLE_FILE).decode()
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a MaskablePPO checkpoint ({exc})") from None
    try:
        return TableRecord.from_json(text)
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: its {TABLE_FILE} is damaged ({exc})") from None
