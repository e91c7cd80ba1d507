#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkcore.py - write an ELF core file laid out like /proc/kcore (tests of pp kcore).

usage: mkcore.py OUT VADDR=HEXBYTES...

Each VADDR=HEXBYTES becomes one PT_LOAD segment holding those bytes at kernel virtual
address VADDR (0x...).  The segments' data lie in the file in the order given, each
0x100 bytes after the previous one's end (so segments adjacent in memory are not in
the file), after a PT_NOTE header as /proc/kcore has first.  64-bit, little-endian,
ET_CORE, EM_X86_64.
"""
import struct
import sys


def main(argv):
    if len(argv) < 3 or any('=' not in a for a in argv[2:]):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    segs = []
    for a in argv[2:]:
        vaddr, hexbytes = a.split('=', 1)
        segs.append((int(vaddr, 0), bytes.fromhex(hexbytes)))
    nph = len(segs) + 1
    ehsize, phentsize = 64, 56
    off = (ehsize + nph * phentsize + 0xff) & ~0xff
    phdrs = [struct.pack('<IIQQQQQQ', 4, 0, 0, 0, 0, 0, 0, 4)]  # PT_NOTE, empty
    data = []
    for vaddr, b in segs:
        phdrs.append(struct.pack('<IIQQQQQQ', 1, 7, off, vaddr, 0, len(b), len(b), 0x1000))
        data.append((off, b))
        off += len(b) + 0x100
    ident = b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr = ident + struct.pack('<HHIQQQIHHHHHH', 4, 62, 1, 0, ehsize, 0, 0, ehsize,
                               phentsize, nph, 64, 0, 0)
    img = bytearray(off)
    img[0:ehsize] = ehdr
    p = b''.join(phdrs)
    img[ehsize:ehsize + len(p)] = p
    for o, b in data:
        img[o:o + len(b)] = b
    with open(argv[1], 'wb') as f:
        f.write(img)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
