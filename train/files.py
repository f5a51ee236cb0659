"""Files a run writes: atomically (a kill mid-write never leaves half a file), and arrays saved
with the settings they were made under, so a file made under other settings is refused by
name rather than silently mixed in."""

from __future__ import annotations

import errno
import json
import os
import zipfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from crates_env.files import FIXED_DATE, atomic_write, write_atomically

PROVENANCE = "provenance.json"  # a run folder's record of the code that made it

__all__ = ["atomic_write", "load_arrays", "record_provenance", "save_arrays", "write_atomically"]


def record_provenance(run_dir: Path) -> list[dict]:
    """Add the code running now to the run folder's provenance.json and return the list: the
    package's version and git commit (``crates_env.provenance``) and torch's version, one entry
    each time a command starts on the run (the first started it, each later one resumed it).
    ValueError naming the file when it is damaged."""
    from importlib.metadata import PackageNotFoundError, version

    from crates_env import provenance

    path = run_dir / PROVENANCE
    made = []
    if path.exists():
        try:
            made = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            made = None
        if not isinstance(made, list):
            raise ValueError(f"{path} is damaged (not a JSON list): restore it or delete it")
    try:
        torch = version("torch")
    except PackageNotFoundError:
        torch = None
    made.append({**provenance(), "torch": torch})
    atomic_write(path, json.dumps(made, indent=2))
    return made


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
    differ: list[str] = []
    try:
        with np.load(path) as data:
            saved = json.loads(str(data["settings"]))
            if settings is not None:  # first: other settings may keep other arrays
                expected = json.loads(json.dumps(settings, sort_keys=True))  # tuples: lists
                differ = sorted(
                    k for k in expected.keys() | saved.keys() if saved.get(k) != expected.get(k)
                )
            arrays = {} if differ else {name: data[name] for name in names}
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"{path}: not {what} ({exc})") from None
    if differ:
        detail = ", ".join(f"{k}: {saved.get(k)!r} there, {expected.get(k)!r} here" for k in differ)
        raise ValueError(f"{path} was made under other settings ({detail}){hint}")
    return arrays


_FIXES = {
    errno.ENOSPC: "free some space, or write elsewhere",
    errno.EDQUOT: "free some space, or write elsewhere",
    errno.EROFS: "write to a folder on a writable disk",
    errno.EACCES: "write to a folder you may write in",
    errno.EPERM: "write to a folder you may write in",
    errno.EISDIR: "give a file name, not a folder",
    errno.ENOTDIR: "a folder on the way is a file: give another path",
}


def write_problem(exc: OSError) -> str:
    """One line for a file that could not be written: which, why, and what to do."""
    where = f" {exc.filename}" if exc.filename else ""
    why = exc.strerror or str(exc)
    fix = _FIXES.get(exc.errno or 0, "check the path")
    return f"cannot write{where}: {why} ({fix})"


def check_output_file(path: Path, option: str) -> None:
    """A file a command is to write can be written: a ValueError naming ``option`` (``--out``)
    and what to do otherwise, before any work is done."""
    if path.is_dir():
        raise ValueError(
            f"{option} {path} is a folder; give a file name, e.g. {path / 'game.html'}"
        )
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: {folder} is a file, not a folder; give another path")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{option} {path}: {folder} is not writable; give a writable folder")
