#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# Two builds of daicho on PostgreSQL, A and B, measured in the same run and
# interleaved (A, B, B, A, ...) so that the machine's drift weighs on both
# alike (hyperfine, as bench/pg.sh 4 uses it, runs all of A, then all of B:
# on these machines that moved the ratio by 10% from one run to the next):
#
#   direct  claim --next by the owner, daicho-pg connecting itself
#   pool    claim --next by the owner, the static daicho through a pool
#           that its own daicho-pg serves
#
# Each build has a ledger of its own in a throw-away cluster
# (tests/pg/cluster.sh); every 100 claims, what was claimed is put out of
# reach again, in both. Prints the median of each and the ratio B / A.
#
# Usage: bench/pg-ab.sh A B [RUNS]   (A and B: trees with daicho and
# daicho-pg built; RUNS [300] claims of each, per mode)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/pg-ab.sh A B [RUNS]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2")
RUNS=${3:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
for d in "$A" "$B"; do
	[ -x "$d/daicho" ] && [ -x "$d/daicho-pg" ] ||
		{ echo "bench: $d has no built daicho and daicho-pg" >&2; exit 2; }
done
unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT PGDATABASE \
	CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
export LC_ALL=C
work=$(mktemp -d /tmp/daicho-pg-ab.XXXXXX)
chmod 755 "$work"
cluster=$("$root/tests/pg/cluster.sh" start)
trap '"$root/tests/pg/cluster.sh" stop "$cluster"; rm -rf "$work"' EXIT
# shellcheck disable=SC1091
. "$cluster/env"
# Private copies: a rebuild during the run cannot change what is measured.
mkdir "$work/a" "$work/b"
cp "$A/daicho" "$A/daicho-pg" "$work/a/"
cp "$B/daicho" "$B/daicho-pg" "$work/b/"
cd "$work"
awk 'BEGIN { for (i = 1; i <= 1500; i++) printf "{\"title\":\"t %d\"}\n", i }' >tasks.jsonl

# ledger NAME BIN: a ledger of 1,500 tasks made by BIN; prints its address.
ledger() {
	createdb "$1"
	local address="postgresql:///$1?host=$PGHOST&port=$PGPORT&user=$PGUSER"
	"$2" --ledger "$address" init >/dev/null
	"$2" --ledger "$address" add --batch tasks.jsonl >/dev/null
	echo "$address"
}

# one SIDE CMD...: the wall time of CMD in ns, appended to SIDE.times.
one() {
	local side=$1 t0
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null
	echo $(($(date +%s%N) - t0)) >>"$side.times"
}

median_ms() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.2f", ((NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) / 1e6 }'
}

# measure MODE LA LB CMD_A... -- CMD_B...: RUNS of each, interleaved.
measure() {
	local mode=$1 la=$2 lb=$3 i
	shift 3
	local -a ca=() cb=()
	while [ "$1" != -- ]; do ca+=("$1"); shift; done
	shift
	cb=("$@")
	"${ca[@]}" >/dev/null && "${cb[@]}" >/dev/null
	rm -f a.times b.times
	for ((i = 0; i < RUNS; i++)); do
		if ((i % 2)); then one a "${ca[@]}"; one b "${cb[@]}"
		else one b "${cb[@]}"; one a "${ca[@]}"; fi
		if ((i % 100 == 99)); then
			for db in "$la" "$lb"; do
				psql -X -q -d "$db" -c "UPDATE tasks SET state = 'reported', lease_expires_ms = NULL WHERE state = 'claimed'"
			done
		fi
	done
	local ma mb
	ma=$(median_ms a.times) mb=$(median_ms b.times)
	echo "   $mode: A $ma ms, B $mb ms, B/A $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", b / a }')"
}

echo "== bench/pg-ab.sh: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   A = $A (commit $("$work/a/daicho" --version | sed 's/.*commit \([^;]*\);.*/\1/'))"
echo "   B = $B (commit $("$work/b/daicho" --version | sed 's/.*commit \([^;]*\);.*/\1/'))"
echo "   claim --next by the owner, $RUNS runs of each, interleaved; PostgreSQL $(psql -X -At -c 'SHOW server_version' postgres | cut -d' ' -f1)"
LA=$(ledger da "$work/a/daicho-pg") LB=$(ledger db "$work/b/daicho-pg")
measure "direct (daicho-pg)" da db \
	"$work/a/daicho-pg" --ledger "$LA" --as bench claim --next -- \
	"$work/b/daicho-pg" --ledger "$LB" --as bench claim --next
PA=$(ledger pa "$work/a/daicho-pg") PB=$(ledger pb "$work/b/daicho-pg")
DAICHO_PG_BIN=$work/a/daicho-pg "$work/a/daicho" --ledger "$PA" pool start >/dev/null
DAICHO_PG_BIN=$work/b/daicho-pg "$work/b/daicho" --ledger "$PB" pool start >/dev/null
measure "through a pool (daicho)" pa pb \
	env DAICHO_PG_BIN="$work/a/daicho-pg" "$work/a/daicho" --ledger "$PA" --as bench claim --next -- \
	env DAICHO_PG_BIN="$work/b/daicho-pg" "$work/b/daicho" --ledger "$PB" --as bench claim --next
DAICHO_PG_BIN=$work/a/daicho-pg "$work/a/daicho" --ledger "$PA" pool stop >/dev/null
DAICHO_PG_BIN=$work/b/daicho-pg "$work/b/daicho" --ledger "$PB" pool stop >/dev/null
