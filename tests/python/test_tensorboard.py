"""ember.utils.tensorboard.SummaryWriter: the event files decoded back (framing, CRC-32C,
protobuf fields), and, where the tensorboard package is installed, read by TensorBoard's own
loader."""

import os
import struct

import numpy as np
import pytest

import ember
from ember.utils.tensorboard import SummaryWriter, _events


def test_crc32c_known_answer():
    assert _events.crc32c(b"123456789") == 0xE3069283
    assert _events.crc32c(b"") == 0


def _fields(buf):
    """A protobuf message's (field, value) pairs: ints, 8/4-byte payloads, bytes."""
    pos, out = 0, []
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = struct.unpack_from("<d", buf, pos)[0], pos + 8
        elif wire == 5:
            value, pos = struct.unpack_from("<f", buf, pos)[0], pos + 4
        else:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + n], pos + n
        out.append((field, value))
    return out


def _varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def _events_of(path):
    with open(path, "rb") as f:
        return [dict(_fields(r)) for r in _events.read_records(f.read())]


def test_scalars_are_written_as_tensorboard_reads_them(tmp_path):
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        w.add_scalar("Loss/train", ember.tensor(2.5), 3)
        w.add_scalar("Loss/test", 0.125, global_step=4)
    (name,) = os.listdir(tmp_path)
    assert name.startswith("events.out.tfevents.")
    events = _events_of(tmp_path / name)
    assert events[0][3] == b"brain.Event:2"
    got = []
    for ev in events[1:]:
        (value,) = [v for f, v in _fields(ev[5]) if f == 1]
        fields = dict(_fields(value))
        got.append((fields[1].decode(), fields[2], ev[2]))
    assert got == [("Loss/train", 2.5, 3), ("Loss/test", 0.125, 4)]


def test_histograms_text_and_several_scalars(tmp_path):
    w = SummaryWriter(log_dir=str(tmp_path))
    w.add_histogram("w", ember.tensor([1.0, 2.0, 2.0, 5.0]), 1, bins=2)
    w.add_text("note", "hello", 2)
    w.add_scalars("acc", {"train": 0.5, "val": 0.25}, 7)
    w.close()
    files = sorted(os.listdir(tmp_path))
    assert files[:2] == ["acc_train", "acc_val"]
    events = _events_of(tmp_path / files[2])
    histo_value = dict(_fields(dict(_fields(events[1][5]))[1]))
    h = dict(_fields(histo_value[5]))
    assert (h[1], h[2], h[3], h[4], h[5]) == (1.0, 5.0, 4.0, 10.0, 34.0)
    assert np.frombuffer(h[7], dtype="<f8").tolist() == [3.0, 1.0]
    text_value = dict(_fields(dict(_fields(events[2][5]))[1]))
    assert text_value[1] == b"note/text_summary" and b"hello" in text_value[8]
    (sub,) = os.listdir(tmp_path / "acc_val")
    ev = _events_of(tmp_path / "acc_val" / sub)[1]
    assert dict(_fields(dict(_fields(ev[5]))[1]))[2] == 0.25 and ev[2] == 7
    with pytest.raises(NotImplementedError, match="add_image is not supported"):
        w.add_image("img", ember.zeros(3, 2, 2))


def test_tensorboard_itself_reads_the_file(tmp_path):
    loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("x", step * 1.5, step)
    (name,) = os.listdir(tmp_path)
    events = list(loader.LegacyEventFileLoader(str(tmp_path / name)).Load())  # no migration
    values = [(e.step, e.summary.value[0].simple_value) for e in events if e.HasField("summary")]
    assert [(s, v) for s, v in values] == [(0, 0.0), (1, 1.5), (2, 3.0)]
