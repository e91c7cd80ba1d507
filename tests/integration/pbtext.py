# SPDX-License-Identifier: MIT
# pbtext.py - read protoc's text output (--decode_raw or --decode=TYPE) into a tree, for the
# export tests.  A message is a list of (name, value) pairs in file order; value is a str
# (the scalar as printed, strings with their quotes) or a nested list.  Not a protobuf
# library: just enough to count fields along a path.
import sys


def parse(text):
    root = []
    stack = [root]
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s == '}':
            stack.pop()
        elif s.endswith('{'):
            node = []
            stack[-1].append((s[:-1].strip(), node))
            stack.append(node)
        else:
            name, _, value = s.partition(':')
            stack[-1].append((name.strip(), value.strip()))
    if len(stack) != 1:
        raise ValueError('unbalanced braces in protoc output')
    return root


def get(msg, name):
    """All values of field @name in @msg."""
    return [v for n, v in msg if n == name]


def one(msg, name, default=None):
    v = get(msg, name)
    return v[0] if v else default


def unquote(v):
    """A string field's text; --decode_raw shows a string that happens to parse as a
    message as one: then None."""
    if isinstance(v, list):
        return None
    if v.startswith('"') and v.endswith('"'):
        return bytes(v[1:-1], 'utf-8').decode('unicode_escape')
    return v


if __name__ == '__main__':
    tree = parse(sys.stdin.read())
    print(len(tree), 'top-level fields')
