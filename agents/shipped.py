"""What the package ships beside its code, found from any folder and in any install (editable,
regular, ``pip install --user``, ``--target``): files of the installed packages, read with
``importlib.resources``.

- the trained networks (``agents/data/<preset>_<players>p.zip``, each recording the tables it
  learned, ``agents.checkpoints``, and holding no optimizer state): the agent named ``shipped``
  is the network of the table at hand (``crates eval --preset P --agents shipped heuristic``,
  ``search:base=shipped``);
- the training configs (``train/configs/*.yaml``; ``crates train`` reads ``default.yaml``
  unless given ``--config``).

In the repository they stay in the top-level ``checkpoints/`` and ``configs/``, which the
package folders link to.
"""

from __future__ import annotations

import atexit
import contextlib
from importlib import resources
from pathlib import Path

from crates_env.rules import Ruleset

from .checkpoints import TableRecord, read_checkpoint

SHIPPED = "shipped"  # the shipped network's agent name
NETWORKS = "data"  # the folder of the shipped networks, one per table: docs/model_card.md

_EXTRACTED = contextlib.ExitStack()  # files of a zipped install, copied out until exit
atexit.register(_EXTRACTED.close)


def package_file(package: str, relative: str, what: str) -> Path:
    """The path of the file ``relative`` (``/``-separated) that ``package`` ships; a
    ValueError naming it when the install lacks it."""
    resource = resources.files(package).joinpath(*relative.split("/"))
    if not resource.is_file():
        raise ValueError(
            f"{what} is missing: {package} has no {relative} (looked in {resource}); "
            "reinstall the package"
        )
    return _EXTRACTED.enter_context(resources.as_file(resource))


def network_name(rules: Ruleset) -> str:
    """The file name of the shipped network of a table's preset and players."""
    return f"{rules.preset}_{rules.num_players}p.zip"


def shipped_tables() -> list[TableRecord]:
    """The tables the package ships a network for."""
    folder = resources.files("agents").joinpath(NETWORKS)
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(".zip"))
    return [
        table
        for name in files
        for table in read_checkpoint(package_file("agents", f"{NETWORKS}/{name}", name)).tables
    ]


def shipped_network(rules: Ruleset) -> Path:
    """The checkpoint of the network the package ships for the table of ``rules``
    (``PolicyAgent`` plays it); ValueError listing the tables that have one if this one has
    none."""
    table = TableRecord.of(rules)
    folder = resources.files("agents").joinpath(NETWORKS)
    if folder.joinpath(network_name(rules)).is_file():
        path = package_file("agents", f"{NETWORKS}/{network_name(rules)}", "the shipped network")
        if not read_checkpoint(path).mismatch(table):
            return path
    have = ", ".join(str(t) for t in shipped_tables()) or "none"
    raise ValueError(
        f"no shipped network for {table}: the package ships networks for {have} "
        "(train one for this table: docs/training.md)"
    )


def has_shipped_network(rules: Ruleset) -> bool:
    """Whether the package ships a network for the table of ``rules``."""
    try:
        shipped_network(rules)
    except ValueError:
        return False
    return True
