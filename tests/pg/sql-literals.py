#!/usr/bin/env python3
"""Print every SQL string literal of the C files named on the command line.

A literal is a run of adjacent C string literals, concatenated, where an
identifier #defined (in the file or in a header under src/) as string
literals counts as its expansion. It is SQL when it starts with an
upper-case statement keyword. Output: one record per statement,
"file:line<TAB>sql" with runs of white space turned into one space, each
record ended by a NUL byte.
"""
import glob
import os
import re
import sys

KEYWORDS = re.compile(r'\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE|'
                      r'CREATE|ALTER|DROP|BEGIN|COMMIT|ROLLBACK|PRAGMA)\b')
ESCAPES = {'n': '\n', 't': '\t', '\\': '\\', '"': '"', "'": "'", '0': '\0'}
TOKEN = re.compile(r'''
    (?P<nl>\n)
  | (?P<space>[ \t\r\f\v]+|\\\n)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\\n]|\\.)*')
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<other>.)
''', re.S | re.X)


def unquote(token):
    body, out, i = token[1:-1], [], 0
    while i < len(body):
        if body[i] == '\\':
            out.append(ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return ''.join(out)


def tokens(text):
    """Yield (kind, value, line) for text, without white space or comments."""
    line = 1
    for m in TOKEN.finditer(text):
        kind, value = m.lastgroup, m.group()
        if kind not in ('nl', 'space', 'comment'):
            yield kind, value, line
        line += value.count('\n')


def string_macros(text, macros):
    """Add text's #defines whose bodies are string literals and such macros."""
    for m in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]'
                         r'((?:[^\n]*\\\n)*[^\n]*)', text, re.M):
        body = list(tokens(m.group(2).replace('\\\n', ' ')))
        if body and all(k == 'string' or (k == 'ident' and v in macros)
                        for k, v, _ in body) and any(
                            k == 'string' for k, _, _ in body):
            macros[m.group(1)] = ''.join(
                unquote(v) if k == 'string' else macros[v]
                for k, v, _ in body)


def literals(text, macros):
    """Yield (line, value) for each run of adjacent string literals."""
    run, run_line, in_directive = None, 0, False
    directive_line = 0
    for kind, value, line in tokens(text):
        if kind == 'other' and value == '#':
            in_directive, directive_line = True, line
        if in_directive and line != directive_line:
            in_directive = False
        if in_directive:
            continue
        if kind == 'string' or (kind == 'ident' and value in macros
                                and run is not None):
            piece = unquote(value) if kind == 'string' else macros[value]
            if run is None:
                run, run_line = '', line
            run += piece
            continue
        if run is not None:
            yield run_line, run
            run = None
    if run is not None:
        yield run_line, run


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    macros = {}
    for header in sorted(glob.glob(os.path.join(root, 'src', '**', '*.h'),
                                   recursive=True)):
        with open(header, encoding='utf-8') as f:
            string_macros(f.read(), macros)
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        local = dict(macros)
        string_macros(text, local)
        for line, value in literals(text, local):
            if KEYWORDS.match(value):
                sql = re.sub(r'\s+', ' ', value).strip()
                sys.stdout.write('%s:%d\t%s\0' % (path, line, sql))


if __name__ == '__main__':
    main()
