#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""statefix.py STATE DIR [MAX]: hostile copies of a pp state file (docs/state-format.md).

Each copy changes one byte of the ANALYZER section (or, for some, of CONTEXT) and makes every
checksum right again, so that a reader gets past the CRCs and meets the bad field itself: the
test of the analyzers' state_read and of the context's checks (t801).  At most MAX copies
(default 240), spread over the section's bytes, two values each (all bits flipped, and 0x80:
a varint that goes on).
"""
import os
import struct
import sys


def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = crc32c_table()


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def sections(b):
    """(offset of the section header, kind, payload size) of each section."""
    out, at = [], 32
    while at + 12 <= len(b):
        kind, _flags, size = struct.unpack_from('<HHI', b, at)
        out.append((at, kind, size))
        at += 12 + size
    return out


def fix(b):
    struct.pack_into('<I', b, 28, crc32c(b[:28]))
    for at, _kind, size in sections(b):
        struct.pack_into('<I', b, at + 8, crc32c(b[at + 12:at + 12 + size], crc32c(b[at:at + 8])))


def main():
    src, out = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 240
    good = bytearray(open(src, 'rb').read())
    assert crc32c(b'123456789') == 0xE3069283
    secs = {kind: (at, size) for at, kind, size in sections(good)}
    if 4 not in secs or 3 not in secs:
        sys.exit('%s: no ANALYZER or CONTEXT section' % src)
    spots = []
    at, size = secs[4]
    spots += [at + 12 + i for i in range(size)]
    at, size = secs[3]
    spots += [at + 12 + i for i in range(0, size, max(1, size // 40))]
    step = max(1, len(spots) * 2 // limit)
    os.makedirs(out, exist_ok=True)
    n = 0
    for k, pos in enumerate(spots):
        if k % step:
            continue
        for v in (good[pos] ^ 0xFF, good[pos] | 0x80):
            if v == good[pos]:
                continue
            b = bytearray(good)
            b[pos] = v
            fix(b)
            open(os.path.join(out, '%06d-%02x.state' % (pos, v)), 'wb').write(b)
            n += 1
    print('%s: %d hostile copies in %s' % (src, n, out))


if __name__ == '__main__':
    main()
