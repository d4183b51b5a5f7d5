#!/usr/bin/env python3
"""Write the psql script that check-sql.sh runs: PREPARE every SQL literal
of core (tests/pg/sql-literals.py) as the PostgreSQL driver would send it.

Reads the NUL-separated records of sql-literals.py on stdin. Each statement
has ?N rewritten to $N (a bare ? numbered as SQLite numbers it) and
SQLite's INDEXED BY hint dropped, outside quoted strings: what the driver
does. Statements that only a driver runs (transactions, PRAGMA) are listed
as skipped, and so are those assembled at run time (a printf format):
those are checked by reading the code.
"""
import re
import sys

DRIVER_ONLY = re.compile(r'\s*(BEGIN|COMMIT|ROLLBACK|PRAGMA|CREATE|ALTER|'
                         r'DROP)\b')
TAG = '$daicho_sql$'


def rewrite(sql):
    """The statement as the driver sends it to PostgreSQL."""
    out, i, n, highest = [], 0, len(sql), 0
    while i < n:
        c = sql[i]
        if c in '\'"':
            j = i + 1
            while j < n and sql[j] != c:
                j += 1
            out.append(sql[i:j + 1])
            i = j + 1
        elif c == '?':
            m = re.match(r'\?(\d*)', sql[i:])
            number = int(m.group(1)) if m.group(1) else highest + 1
            highest = max(highest, number)
            out.append('$%d' % number)
            i += len(m.group())
        else:
            m = re.match(r'INDEXED BY \w+', sql[i:])
            if m and (i == 0 or not sql[i - 1].isalnum()):
                i += len(m.group())
            else:
                out.append(c)
                i += 1
    return ''.join(out)


def quote(text):
    assert TAG not in text
    return TAG + text + TAG


def main():
    records = [r for r in sys.stdin.read().split('\0') if r]
    count = 0
    for record in records:
        where, sql = record.split('\t', 1)
        if DRIVER_ONLY.match(sql):
            print('\\echo skipped (driver): %s: %s' % (where, sql[:60]))
            continue
        if '%' in re.sub(r"'[^']*'", '', sql):
            print('\\echo skipped (assembled at run time): %s: %s'
                  % (where, sql[:60]))
            continue
        count += 1
        print('SELECT r FROM pg_temp.daicho_check(%s, %s) r'
              ' WHERE r IS NOT NULL;'
              % (quote(where), quote(rewrite(sql))))
    print('\\echo statements: %d' % count)


if __name__ == '__main__':
    main()
