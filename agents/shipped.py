"""What the package ships beside its code, found from any folder and in any install (editable,
regular, ``pip install --user``, ``--target``): files of the installed packages, read with
``importlib.resources``.

- the trained networks (``agents/data/*.zip``, each recording the tables it learned,
  ``agents.checkpoints``, and holding no optimizer state) and their index
  (``agents/data/shipped.json``: each table's network, the best measured there,
  docs/model_card.md): the agent named ``shipped`` is the network the index gives the table at
  hand (``crates eval --preset P --players N --agents shipped heuristic``,
  ``search:base=shipped``);
- the training configs (``train/configs/*.yaml``; ``crates train`` reads ``default.yaml``
  unless given ``--config``).

In the repository they stay in the top-level ``checkpoints/`` and ``configs/``, which the
package folders link to.
"""

from __future__ import annotations

import atexit
import contextlib
import json
from importlib import resources
from pathlib import Path

from crates_env.rules import Ruleset
from crates_env.table_observation import table_key, table_of

from .checkpoints import TableRecord, read_checkpoint

SHIPPED = "shipped"  # the shipped network's agent name
NETWORKS = "data"  # the folder of the shipped networks: docs/model_card.md
INDEX = "shipped.json"  # in it: {"tables": {"preset:players": file}}, the network of each table

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


def shipped_index() -> dict[str, str]:
    """The index: each table's key -> the file of its network in the package's data."""
    path = package_file("agents", f"{NETWORKS}/{INDEX}", "the shipped networks' index")
    try:
        tables = json.loads(path.read_text())["tables"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: the shipped networks' index is damaged ({exc})") from None
    return {str(key): str(name) for key, name in tables.items()}


def shipped_tables() -> list[TableRecord]:
    """The tables the package ships a network for, in the index's order."""
    return [TableRecord(*table_of(key)) for key in shipped_index()]


def shipped_network(rules: Ruleset) -> Path:
    """The checkpoint of the network the package ships for the table of ``rules``
    (``PolicyAgent`` plays it): the index's, once its file says it learned that table (rule
    options and all); ValueError listing the tables that have one if this one has none."""
    table = TableRecord.of(rules)
    name = shipped_index().get(table_key(rules.preset, rules.num_players))
    if name is not None:
        path = package_file("agents", f"{NETWORKS}/{name}", "the shipped network")
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
