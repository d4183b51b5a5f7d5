#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# The MCP server's claim against the CLI's, in the same run (issue 16):
# a tools/call claim {"next": true} through one resident `daicho mcp`
# (the client's round trip) and `daicho claim --next` as a whole process,
# interleaved, on a ledger of 10,000 tasks and on one of 1,000,000.
# Targets: the MCP call at least 5x faster than the process, and under
# 1 ms median at 1,000,000 tasks. The client is bench/mcpclaim.c (C, so
# that no client runtime is measured; see there).
#
#   bench/mcp.sh          both ledgers (about a minute, most of it adding
#                         the 1,000,000 tasks)
# Sizes: BENCH_MCP_RUNS [300] on 10,000 tasks, BENCH_MCP_BIG_RUNS [200] on
# BENCH_BIG_TASKS [1000000]; DAICHO [the daicho next to this directory];
# BENCH_OUT [bench/out]; BENCH_TMP [/tmp].
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
OUT=${BENCH_OUT:-$here/out}
RUNS=${BENCH_MCP_RUNS:-300}
BIG_RUNS=${BENCH_MCP_BIG_RUNS:-200}
BIG_TASKS=${BENCH_BIG_TASKS:-1000000}
src_bin=${DAICHO:-$root/daicho}
[ -x "$src_bin" ] || { echo "bench: no $src_bin (run make first)" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "bench: sqlite3 is missing" >&2; exit 1; }
unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
export LC_ALL=C
mkdir -p "$OUT"
WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/daicho-bench-mcp.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
D=$WORK/daicho
cp "$src_bin" "$D"
CLIENT=$WORK/mcpclaim
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -o "$CLIENT" "$here/mcpclaim.c" -lsqlite3 2>"$WORK/cc.err" ||
	{ cat "$WORK/cc.err" >&2; echo "bench: cannot build mcpclaim" >&2; exit 1; }
REPORT=$OUT/mcp-report.txt
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# ledger N DIR: a ledger of N tasks, priorities 0-2, its WAL truncated.
ledger() {
	local L=$2/ledger.db
	mkdir -p "$2"
	"$D" --ledger "$L" init >/dev/null || exit 1
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++)
		printf "{\"title\":\"bench task %d\",\"priority\":%d}\n", i, i % 3 }' |
		"$D" --ledger "$L" add --batch - -q || exit 1
	sqlite3 "$L" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	sync
}

# measure N RUNS NAME: mcpclaim on a ledger of N tasks; the verdicts.
measure() {
	local dir=$WORK/$3 line m c
	ledger "$1" "$dir"
	say "== MCP claim vs claim --next, $(sqlite3 "$dir/ledger.db" 'SELECT count(*) FROM tasks') tasks, $2 runs each (load $(load))"
	"$CLIENT" "$D" "$dir/ledger.db" "$2" >"$OUT/mcp-$3.txt" || { cat "$OUT/mcp-$3.txt"; exit 1; }
	line=$(tail -n 1 "$OUT/mcp-$3.txt")
	say "   $line"
	m=$(awk '{ print $3 }' <<<"$line")
	c=$(awk '{ print $6 }' <<<"$line")
	say "   MCP call at least 5x faster than the process: $(awk -v m="$m" -v c="$c" 'BEGIN { print (c >= 5 * m) ? "met" : "MISSED" }') ($(awk -v m="$m" -v c="$c" 'BEGIN { printf "%.1f", c / m }')x)"
	[ "$1" -ge 1000000 ] &&
		say "   MCP call under 1 ms median at $1 tasks: $(awk -v m="$m" 'BEGIN { print (m < 1000) ? "met" : "MISSED" }') ($m us)"
	rm -rf "$dir"
}

say "== daicho mcp benchmark: $("$D" --version) at $(git -C "$root" rev-parse --short HEAD 2>/dev/null), $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
measure 10000 "$RUNS" 10k
measure "$BIG_TASKS" "$BIG_RUNS" big
