#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds of fuzz_gopclntab: small .gopclntab sections written from Go's
layout (runtime/symtab.go: pcHeader, functab, _func; see
src/probe/gopclntab.h), for Go 1.18 and 1.20 magics, 8- and 4-byte
pointers.

usage: gopclntab_seeds.py OUTDIR"""
import os
import struct
import sys


def table(magic, ptr, names, text=0x401000):
    word = "<Q" if ptr == 8 else "<I"
    hdr_len = 8 + 8 * ptr
    nametab = b""
    name_offs = []
    for n in names:
        name_offs.append(len(nametab))
        nametab += n.encode() + b"\0"
    names_at = hdr_len
    pcln_at = names_at + len(nametab)
    nfunc = len(names)
    ftab_len = (nfunc + 1) * 8
    funcs = b""
    ftab = b""
    for i, off in enumerate(name_offs):
        ftab += struct.pack("<II", 0x40 * i, ftab_len + len(funcs))
        funcs += struct.pack("<Ii", 0x40 * i, off) + b"\0" * 8
    ftab += struct.pack("<II", 0x40 * nfunc, 0)
    hdr = struct.pack("<IBBBB", magic, 0, 0, 1, ptr)
    for w in (nfunc, 0, text, names_at, 0, 0, 0, pcln_at):
        hdr += struct.pack(word, w)
    return hdr + nametab + ftab + funcs


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
fns = ["runtime.goexit", "runtime.mstart", "main.main", "main.(*T).m"]
seeds = {
    "go118": table(0xfffffff0, 8, fns),
    "go120": table(0xfffffff1, 8, fns),
    "go120_32": table(0xfffffff1, 4, fns[:2], 0x8049000),
    "pie": table(0xfffffff1, 8, fns[2:], 0),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
