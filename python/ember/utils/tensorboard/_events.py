"""The event-file format TensorBoard reads: TFRecord framing (length, masked CRC-32C of the
length, data, masked CRC-32C of the data) around serialized `Event` protocol buffers, encoded by
hand for the few fields SummaryWriter writes (field numbers from TensorFlow's event.proto and
summary.proto)."""

from __future__ import annotations

import struct

# CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, table-driven.
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord."""
    length = struct.pack("<Q", len(data))
    return (
        length
        + struct.pack("<I", masked_crc32c(length))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


# ---- protobuf wire format -----------------------------------------------------------------------
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64 as two's complement, ten bytes
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint((field << 3) | wire)


def f_double(field: int, v: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", v)


def f_float(field: int, v: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", v)


def f_int(field: int, v: int) -> bytes:
    return _key(field, 0) + _varint(v)


def f_bytes(field: int, v: bytes) -> bytes:
    return _key(field, 2) + _varint(len(v)) + v


def f_str(field: int, v: str) -> bytes:
    return f_bytes(field, v.encode())


def f_packed_doubles(field: int, vs) -> bytes:
    return f_bytes(field, b"".join(struct.pack("<d", float(v)) for v in vs))


def event(
    wall_time: float,
    step: int = 0,
    *,
    file_version: str | None = None,
    summary: bytes | None = None,
) -> bytes:
    """Event: wall_time = 1, step = 2, file_version = 3, summary = 5."""
    out = f_double(1, wall_time) + f_int(2, step)
    if file_version is not None:
        out += f_str(3, file_version)
    if summary is not None:
        out += f_bytes(5, summary)
    return out


def scalar_value(tag: str, value: float) -> bytes:
    """Summary.Value: tag = 1, simple_value = 2."""
    return f_str(1, tag) + f_float(2, value)


def histogram_value(tag: str, mn, mx, num, total, sum_sq, limits, counts) -> bytes:
    """Summary.Value with histo = 5 (HistogramProto: min, max, num, sum, sum_squares,
    bucket_limit, bucket)."""
    histo = (
        f_double(1, mn)
        + f_double(2, mx)
        + f_double(3, num)
        + f_double(4, total)
        + f_double(5, sum_sq)
        + f_packed_doubles(6, limits)
        + f_packed_doubles(7, counts)
    )
    return f_str(1, tag) + f_bytes(5, histo)


def text_value(tag: str, text: str) -> bytes:
    """Summary.Value with tensor = 8 (a DT_STRING scalar) and metadata = 9 naming the text
    plugin, as TensorBoard's text plugin reads it."""
    tensor = f_int(1, 7) + f_bytes(2, f_bytes(2, f_int(1, 1))) + f_bytes(8, text.encode())
    metadata = f_bytes(1, f_str(1, "text"))
    return f_str(1, tag) + f_bytes(9, metadata) + f_bytes(8, tensor)


def summary(*values: bytes) -> bytes:
    """Summary: value = 1, repeated."""
    return b"".join(f_bytes(1, v) for v in values)


def read_records(data: bytes):
    """The records of an event file, checking both CRCs (tests read files back with it)."""
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        (crc_len,) = struct.unpack_from("<I", data, pos + 8)
        if crc_len != masked_crc32c(data[pos : pos + 8]):
            raise ValueError("event file: bad length checksum")
        body = data[pos + 12 : pos + 12 + length]
        (crc_body,) = struct.unpack_from("<I", data, pos + 12 + length)
        if crc_body != masked_crc32c(body):
            raise ValueError("event file: bad data checksum")
        yield body
        pos += 16 + length
