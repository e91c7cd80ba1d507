#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# textsafe.py FILE... - fail when a file holds what must not reach a terminal raw:
# a C0 control other than tab and newline (0x00-0x08, 0x0b-0x1f), DEL (0x7f), bytes
# that are not UTF-8, or a C1 control (U+0080..U+009F) encoded in UTF-8.  Prints each
# offence as FILE:LINE:COLUMN and the line's neighbourhood (repr), exits 1 if any.
import sys

BAD_C0 = set(range(0x00, 0x09)) | set(range(0x0b, 0x20)) | {0x7f}


def offences(data):
    line, col, i = 1, 0, 0
    while i < len(data):
        b = data[i]
        if b == 0x0a:
            line, col, i = line + 1, 0, i + 1
            continue
        if b < 0x80:
            if b in BAD_C0:
                yield line, col, i, 'control byte 0x%02x' % b
            i, col = i + 1, col + 1
            continue
        n = 2 if 0xc2 <= b <= 0xdf else 3 if 0xe0 <= b <= 0xef else 4 if 0xf0 <= b <= 0xf4 else 0
        try:
            ch = data[i:i + n].decode('utf-8', 'strict') if n else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or len(ch) != 1:
            yield line, col, i, 'byte 0x%02x that is not UTF-8' % b
            i, col = i + 1, col + 1
            continue
        if 0x80 <= ord(ch) <= 0x9f:
            yield line, col, i, 'C1 control U+%04X' % ord(ch)
        i, col = i + n, col + 1


def main():
    bad = 0
    for path in sys.argv[1:]:
        data = open(path, 'rb').read()
        for line, col, off, what in offences(data):
            bad += 1
            if bad <= 20:
                print('%s:%d:%d: %s: %r' % (path, line, col, what, data[max(0, off - 20):off + 20]))
    if bad:
        print('%d offences' % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
