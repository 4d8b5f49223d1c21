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


def recv_frame(fd: int, max_blob_bytes: int = 1 << 40) -> tuple[dict, list[bytes]]:
    """Read one frame; raises EOFError on a closed channel, FrameError on a bad frame."""
    (n,) = _LEN.unpack(_read_exact(fd, _LEN.size))
    if n > MAX_HEADER:
        raise FrameError(f"frame header of {n} bytes exceeds {MAX_HEADER}")
    try:
        header = json.loads(_read_exact(fd, n))
        sizes = header.pop("_blobs")
        if not isinstance(header, dict) or not all(isinstance(s, int) and s >= 0 for s in sizes):
            raise ValueError("bad blob sizes")
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        raise FrameError(f"malformed frame header: {e}") from None
    if sum(sizes) > max_blob_bytes:
        raise FrameError(f"frame payload of {sum(sizes)} bytes exceeds {max_blob_bytes}")
    return header, [_read_exact(fd, s) for s in sizes]
