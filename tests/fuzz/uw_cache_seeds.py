#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of fuzz_uw_cache: cache files (uw_cache_file.c's layout: a
504-byte header, then 8-byte rows) written from their definition, each
after fuzz_uw_cache's flag byte (1: the CRC is fixed first).

usage: uw_cache_seeds.py OUTDIR"""
import os
import struct
import sys
import zlib


def cache_file(rows, nsegs=1, bid=bytes(range(20))):
    segs = b"".join(struct.pack("<QQQ", 0x1000 * i, 0x1000 * i, 0x1000) for i in range(nsegs))
    hdr = (b"FTFBUWT\0" + struct.pack("<IIII", 1, 8, len(bid), nsegs) + bid.ljust(64, b"\0") +
           struct.pack("<QQQ", 12345, 0x1000, len(rows)) + segs.ljust(16 * 24, b"\0"))
    body = b"".join(struct.pack("<Ihbb", pc, off, typ, rbp) for pc, off, typ, rbp in rows)
    crc = zlib.crc32(body, zlib.crc32(hdr + b"\0" * 8))
    return hdr + struct.pack("<II", crc, 0) + body


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
seeds = {
    "one": cache_file([(0, 8, 1, 0)]),
    "plt": cache_file([(0, 8, 1, 0), (0x10, 11, 3, 0), (0x40, 16, 0x11, -2), (0x80, 0, 4, 0)], 2),
    "none": cache_file([(0, 0, 0, 0), (4, 0, 5, 0x20), (8, 16, 2, -2)]),
}
for name, data in seeds.items():
    for flag in (0, 1):
        open(os.path.join(out, f"{name}-{flag}"), "wb").write(bytes([flag]) + data)
