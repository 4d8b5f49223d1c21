"""Length-prefixed frames: a JSON header plus raw byte blobs (outputs never travel as escaped JSON).

Frame = ``!I`` header length, header JSON (with ``"_blobs": [len, ...]``), then the blobs.
The reader bounds every size before allocating, so a peer cannot make it buffer without limit.
"""
from __future__ import annotations

import json
import os
import struct

_LEN = struct.Struct("!I")
MAX_HEADER = 256 << 20


class FrameError(Exception):
    """Malformed or oversized frame, or the peer went away."""


def _read_exact(fd: int, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError("peer closed the channel")
        buf += chunk
    return bytes(buf)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def encode_frame(header: dict, blobs: list[bytes] = ()) -> bytes:
    head = json.dumps(dict(header, _blobs=[len(b) for b in blobs])).encode()
    return b"".join([_LEN.pack(len(head)), head, *blobs])


def send_frame(fd: int, header: dict, blobs: list[bytes] = ()) -> None:
    write_all(fd, encode_frame(header, list(blobs)))


def header_length(prefix: bytes, max_header: int = MAX_HEADER) -> int:
    """The header length a frame's 4-byte prefix announces (bounded)."""
    (n,) = _LEN.unpack(prefix)
    if n > max_header:
        raise FrameError(f"frame header of {n} bytes exceeds {max_header}")
    return n


def parse_header(raw: bytes, max_blob_bytes: int) -> tuple[dict, list[int]]:
    """A frame's JSON header and its blob sizes, checked before any blob is read."""
    try:
        header = json.loads(raw)
        sizes = header.pop("_blobs")
        if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
            raise ValueError("bad blob sizes")
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        raise FrameError(f"malformed frame header: {e}") from None
    if sum(sizes) > max_blob_bytes:
        raise FrameError(f"frame payload of {sum(sizes)} bytes exceeds {max_blob_bytes}")
    return header, sizes


def recv_frame(fd: int, max_blob_bytes: int = 1 << 40) -> tuple[dict, list[bytes]]:
    """Read one frame; raises EOFError on a closed channel, FrameError on a bad frame."""
    n = header_length(_read_exact(fd, _LEN.size))
    header, sizes = parse_header(_read_exact(fd, n), max_blob_bytes)
    return header, [_read_exact(fd, s) for s in sizes]
