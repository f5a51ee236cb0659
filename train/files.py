"""Files a run writes: atomically (a kill mid-write never leaves half a file), and arrays saved
with the settings they were made under, so a file made under other settings is refused by
name rather than silently mixed in."""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

FIXED_DATE = (1980, 1, 1, 0, 0, 0)  # zip's earliest date, for archives that compare by bytes


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """``write(tmp)`` to a temporary file beside ``path`` (same suffix), then rename it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.tmp{path.suffix}")
    write(tmp)
    os.replace(tmp, path)


def atomic_write(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text))


def save_arrays(path: Path, arrays: dict[str, np.ndarray], settings: dict) -> None:
    """Arrays and the settings they were made under, in one compressed .npz, atomically. The
    same arrays and settings give the same bytes, wherever and whenever they are written (the
    archive's dates are fixed, where ``np.savez_compressed`` stamps the time): files made on
    other machines compare byte for byte."""
    entries = {"settings": np.asarray(json.dumps(settings, sort_keys=True)), **arrays}

    def write(tmp: Path) -> None:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, array in entries.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as f:
                    np.lib.format.write_array(f, np.asanyarray(array), allow_pickle=False)

    write_atomically(path, write)


def load_arrays(
    path: Path, names: Iterable[str], settings: dict | None, what: str, hint: str = ""
) -> dict[str, np.ndarray]:
    """The named arrays of a file written by :func:`save_arrays`. ValueError if it is not one
    (``what`` says what it should be) or, with ``settings``, was made under other settings:
    the message names each setting that differs, then ``hint`` (what to do about it)."""
    try:
        with np.load(path) as data:
            saved = json.loads(str(data["settings"]))
            arrays = {name: data[name] for name in names}
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"{path}: not {what} ({exc})") from None
    if settings is not None:
        expected = json.loads(json.dumps(settings, sort_keys=True))  # tuples read back as lists
        differ = sorted(
            k for k in expected.keys() | saved.keys() if saved.get(k) != expected.get(k)
        )
        if differ:
            detail = ", ".join(
                f"{k}: {saved.get(k)!r} there, {expected.get(k)!r} here" for k in differ
            )
            raise ValueError(f"{path} was made under other settings ({detail}){hint}")
    return arrays
