"""A checkpoint is data: loading one runs nothing it holds (issue 55). Crafted files, each with a
payload that would write a marker file if anything unpickled it, are refused with one line
naming the file and why, and the marker never appears; a member that inflates to gigabytes is
refused before it is read into memory."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path
from types import SimpleNamespace

import cloudpickle
import pytest
import torch

from agents import PolicyAgent, Table
from agents.checkpoints import (
    CHECKPOINT_FILE,
    OPTIMIZER_FILE,
    WEIGHTS_FILE,
    load_network,
    read_checkpoint,
    resume_training,
)
from train.config import load_config
from train.convert import convert
from train.ppo import make_vec_env, new_model

from .networks import untrained_network

ROOT = Path(__file__).resolve().parent.parent
CRATES = Table.from_rules("crates", 4)
CLI = (sys.executable, "-m", "train.cli")


class Payload:
    """Unpickled, it runs a shell command that writes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _serialized(marker: Path) -> dict:
    """A field of SB3's ``data`` holding the payload, as SB3 serializes an object."""
    pickled = base64.b64encode(cloudpickle.dumps(Payload(marker))).decode()
    return {":type:": "<class 'function'>", ":serialized:": pickled}


def _torch_payload(marker: Path, beside_a_tensor: bool = True) -> bytes:
    """A torch file holding the payload (beside a tensor, or alone)."""
    buffer = io.BytesIO()
    evil = Payload(marker)
    torch.save({"weight": torch.zeros(2), "evil": evil} if beside_a_tensor else evil, buffer)
    return buffer.getvalue()


def _rewrite(source: Path, target: Path, members: dict[str, bytes | str | None]) -> Path:
    """A copy of the zip ``source`` with ``members`` replaced (None: removed) or added."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            if name not in members:
                new.writestr(name, old.read(name))
        for name, data in members.items():
            if data is not None:
                new.writestr(name, data)
    return target


def _with_data_field(tiny, target: Path, field: str, marker: Path) -> Path:
    """The SB3 zip with ``data[field]`` holding the payload."""
    data = json.loads(zipfile.ZipFile(tiny.old).read("data"))
    return _rewrite(tiny.old, target, {"data": json.dumps({**data, field: _serialized(marker)})})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small untrained network, saved as crates train saves one (``new``) and as SB3 saved
    one with the table crates recorded beside it (``old``, the format before this one)."""
    folder = tmp_path_factory.mktemp("tiny")
    config = load_config(
        "configs/default.yaml",
        ["net_arch=[8]", "num_envs=1", "workers=0", f"runs_dir={folder}", 'warm_start.teacher=""'],
    )
    new, old = folder / "new.zip", folder / "old.zip"
    model = untrained_network(config, new)
    model.save(old)
    table = {"preset": "crates", "num_players": 4, "options": {}, "layout_version": 1}
    with zipfile.ZipFile(old, "a") as archive:
        archive.writestr("crates_table.json", json.dumps(table))
    return SimpleNamespace(model=model, new=new, old=old, config=config)


def _refused(path: Path, marker: Path, load=None) -> str:
    """The one-line ValueError that loading ``path`` raises; the payload never ran."""
    with pytest.raises(ValueError) as info:
        (load or (lambda p: PolicyAgent(p, table=CRATES)))(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert not marker.exists(), "the payload ran"
    return message


def test_each_serialized_field_of_an_sb3_zip_is_refused_unread(tiny, tmp_path):
    """SB3's loader unpickles every ``:serialized:`` field of ``data``: each one crafted is
    refused (this package does not read ``data`` at all), and the converter reads past it."""
    data = json.loads(zipfile.ZipFile(tiny.old).read("data"))
    fields = [k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v]
    assert {"lr_schedule", "policy_class", "observation_space", "clip_range"} <= set(fields)
    for field in fields:
        marker = tmp_path / f"ran_{field}"
        evil = _with_data_field(tiny, tmp_path / f"evil_{field}.zip", field, marker)
        for load in (PolicyAgent, load_network, read_checkpoint):
            message = _refused(evil, marker, load)
            assert "an sb3-contrib MaskablePPO checkpoint, which this package no longer" in message
            assert "python -m train.convert" in message
        converted = convert(evil, tmp_path / f"converted_{field}.zip")  # weights and table only
        assert not marker.exists()
        assert converted.checkpoint.learned() == "4-player crates"


def test_the_crafted_data_field_is_live_for_sb3s_own_loader(tiny, tmp_path):
    """The payload is real: SB3's own loader (what every command called before) runs it."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "ran"
    evil = _with_data_field(tiny, tmp_path / "evil.zip", "lr_schedule", marker)
    with contextlib.suppress(Exception):  # SB3 may choke on what the payload returned
        MaskablePPO.load(evil)
    assert marker.exists()


def test_a_pickled_callable_in_the_weights_or_the_optimizer_is_refused(tiny, tmp_path):
    marker = tmp_path / "ran"
    evil = _rewrite(tiny.new, tmp_path / "weights.zip", {WEIGHTS_FILE: _torch_payload(marker)})
    message = _refused(evil, marker)
    assert "its policy.pt holds more than tensors, refused without running it" in message
    assert "it would call posix.system" in message
    evil = _rewrite(tiny.old, tmp_path / "sb3.zip", {"policy.pth": _torch_payload(marker, False)})
    message = _refused(evil, marker, lambda p: convert(p, tmp_path / "never.zip"))
    assert "its policy.pth holds more than tensors" in message
    assert not (tmp_path / "never.zip").exists()
    evil = _rewrite(tiny.new, tmp_path / "optimizer.zip", {OPTIMIZER_FILE: _torch_payload(marker)})
    vec = make_vec_env(tiny.config)
    try:
        model = new_model(tiny.config, vec)
    finally:
        vec.close()
    message = _refused(evil, marker, lambda p: resume_training(model, p, tiny.config.rulesets()))
    assert "its optimizer.pt holds more than tensors" in message


def test_files_that_are_not_checkpoints_are_refused_by_name(tiny, tmp_path):
    marker = tmp_path / "never"
    text = tmp_path / "text.zip"
    text.write_text("a checkpoint, honest")
    assert "not a checkpoint (not a zip archive)" in _refused(text, marker)
    json_only = _rewrite(tiny.new, tmp_path / "json.zip", {WEIGHTS_FILE: None})
    assert "a damaged checkpoint (it holds no weights)" in _refused(json_only, marker)
    extra = _rewrite(tiny.new, tmp_path / "extra.zip", {"data": "{}"})
    assert "it holds files it should not: data" in _refused(extra, marker)
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(100):
            archive.writestr(f"f{i}", b"")
    assert "not a checkpoint (it holds 100 files" in _refused(many, marker)
    record = json.loads(zipfile.ZipFile(tiny.new).read(CHECKPOINT_FILE))

    def edited(name: str, **changes) -> Path:
        text = json.dumps({**record, **changes})
        return _rewrite(tiny.new, tmp_path / name, {CHECKPOINT_FILE: text})

    future = edited("future.zip", format=3)
    assert "checkpoint format 3, and this package reads formats 1 and 2" in _refused(future, marker)
    shapes = edited("shapes.zip", architecture={**record["architecture"], "net_arch": [9]})
    assert "its weights do not fit its architecture" in _refused(shapes, marker)
    huge = edited("huge.zip", architecture={**record["architecture"], "net_arch": [10**6] * 2})
    message = _refused(huge, marker)
    assert "its crates_checkpoint.json is damaged (" in message
    assert "weights, more than the 16,777,216 a checkpoint may hold" in message
    for name, damage in [
        ("tables.zip", {"tables": []}),
        ("players.zip", {"tables": [{**record["tables"][0], "num_players": "4"}]}),
        ("layout.zip", {"observation": {"name": "seat"}}),
        ("extra_key.zip", {"pickle": "gASV"}),
    ]:
        assert "its crates_checkpoint.json is damaged (" in _refused(edited(name, **damage), marker)


def _zip(path: Path, members: list[tuple[str, bytes, int, int]]) -> Path:
    """A zip archive written byte by byte: each member's name, its stored bytes (deflated when
    the declared size differs from theirs) and the CRC and size its headers declare."""
    out, central = bytearray(), bytearray()
    for name, raw, crc, size in members:
        method = 0 if size == len(raw) else zipfile.ZIP_DEFLATED
        head = (method, 0, 0x21, crc, len(raw), size, len(name), 0)
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, *head, 0, 0, 0, 0, len(out))
        central += name.encode()
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, *head) + name.encode() + raw
    end = (len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out + central) + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, *end))
    return path


def _zeros_deflated(gib: int) -> bytes:
    """A raw deflate stream that inflates to ``gib`` GiB of zeros (one 16 MiB block, repeated)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(1 << 24)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (gib << 6) + compressor.flush()


@pytest.mark.parametrize("declared", ["truly", "a lie"])
def test_a_member_that_inflates_to_gigabytes_is_refused_before_it_is_read(tiny, tmp_path, declared):
    """3 GiB of zeros in 3 MB: declared, it is refused by its size alone; declared small, it is
    read no further than that (and fails its CRC). Either way memory stays small."""
    record = zipfile.ZipFile(tiny.new).read(CHECKPOINT_FILE)
    stream = _zeros_deflated(3)
    size = 3 << 30 if declared == "truly" else 1000
    bomb = _zip(
        tmp_path / "bomb.zip",
        [
            (CHECKPOINT_FILE, record, zlib.crc32(record), len(record)),
            (WEIGHTS_FILE, stream, 0, size),
        ],
    )
    tracemalloc.start()
    try:
        message = _refused(bomb, tmp_path / "never")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    if declared == "truly":
        assert "its policy.pt would inflate to 3,221,225,472 bytes, more than the" in message
        assert "refused unread" in message
    else:
        assert "its policy.pt is damaged (Bad CRC-32" in message


def test_an_optimizer_larger_than_its_network_needs_is_refused_unread(tiny, tmp_path):
    record = zipfile.ZipFile(tiny.new).read(CHECKPOINT_FILE)
    weights = zipfile.ZipFile(tiny.new).read(WEIGHTS_FILE)
    stream = _zeros_deflated(1)
    bomb = _zip(
        tmp_path / "bomb.zip",
        [
            (CHECKPOINT_FILE, record, zlib.crc32(record), len(record)),
            (WEIGHTS_FILE, weights, zlib.crc32(weights), len(weights)),
            (OPTIMIZER_FILE, stream, 0, 1 << 30),
        ],
    )
    PolicyAgent(bomb, table=CRATES)  # playing reads no optimizer
    vec = make_vec_env(tiny.config)
    try:
        model = new_model(tiny.config, vec)
    finally:
        vec.close()
    message = _refused(
        bomb, tmp_path / "never", lambda p: resume_training(model, p, tiny.config.rulesets())
    )
    assert "its optimizer.pt would inflate to 1,073,741,824 bytes" in message


def test_crates_eval_of_a_crafted_checkpoint_is_one_line_and_runs_nothing(tiny, tmp_path):
    marker = tmp_path / "ran"
    evil = _with_data_field(tiny, tmp_path / "evil.zip", "lr_schedule", marker)
    done = subprocess.run(
        [*CLI, "eval", "--agents", str(evil), "random", "--deals", "1", "--out", "out"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(evil) in done.stderr, done.stderr
    assert "an sb3-contrib MaskablePPO checkpoint" in done.stderr
    assert not marker.exists() and not (tmp_path / "out").exists()


def test_the_converter_keeps_the_network_bit_for_bit_and_drops_the_optimizer(tiny, tmp_path):
    """An sb3-contrib zip and a run's checkpoint alike become the network alone, whose weights
    are the model's (``verify``: the same action probabilities and values as SB3's load)."""
    for source in (tiny.old, tiny.new):
        network = convert(source, tmp_path / f"{source.stem}_net.zip", verify=source == tiny.old)
        with zipfile.ZipFile(network.path) as z:
            assert z.namelist() == [CHECKPOINT_FILE, WEIGHTS_FILE]
        assert network.checkpoint.architecture == read_checkpoint(tiny.new).architecture
        for key, value in tiny.model.policy.state_dict().items():
            assert network.policy.state_dict()[key].equal(value)
    with pytest.raises(ValueError, match="--verify compares an sb3-contrib zip's conversion"):
        convert(tiny.new, tmp_path / "again.zip", verify=True)


def test_every_kept_checkpoint_is_of_this_format():
    for path in sorted((ROOT / "checkpoints").glob("*.zip")):
        network = load_network(path)
        assert network.checkpoint.training == {} and not network.checkpoint.has_optimizer
