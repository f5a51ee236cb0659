"""What the package ships beside its code, found from any folder and in any install (editable,
regular, ``pip install --user``, ``--target``): files of the installed packages, read with
``importlib.resources``.

- the trained network (``agents/data/crates_4p.zip``): the agent named ``shipped``
  (``crates eval --agents shipped heuristic``, ``search:base=shipped``);
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

SHIPPED = "shipped"  # the shipped network's agent name
NETWORK = "crates_4p.zip"  # 4-player crates: docs/model_card.md

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


def shipped_network() -> Path:
    """The shipped network's checkpoint (``PolicyAgent`` plays it)."""
    return package_file("agents", f"data/{NETWORK}", "the shipped network")
