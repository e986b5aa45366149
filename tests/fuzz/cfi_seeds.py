#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of fuzz_cfi: each ELF file's .eh_frame_hdr and .eh_frame in the
target's input format (u16 header length, header, .eh_frame).

usage: cfi_seeds.py OUT_DIR ELF_FILE...
"""
import os
import struct
import sys


def sections(data):
    """{name: bytes} of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)

    def shdr(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = shdr(shstrndx)[4]
    out = {}
    for i in range(shnum):
        name, _, _, _, off, size = shdr(i)[:6]
        end = data.index(b"\0", stroff + name)
        out[data[stroff + name:end].decode()] = data[off:off + size]
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            s = sections(f.read())
        hdr, ehf = s[".eh_frame_hdr"], s[".eh_frame"]
        with open(os.path.join(out, os.path.basename(path)), "wb") as f:
            f.write(struct.pack("<H", len(hdr)) + hdr + ehf)


if __name__ == "__main__":
    main()
