#!/usr/bin/env bash
# Copyright (c) 2026 the daicho authors; ISC licence (LICENSE).
# daicho on PostgreSQL (issue 17): a throw-away cluster on a Unix socket
# (tests/pg/cluster.sh), then
#
#   1  claim --next as a whole process (directly, and through a pool) vs
#      psql running one equivalent UPDATE ... RETURNING (target: <= 1.0x)
#   2  32 concurrent claimer processes draining 20,000 tasks, on PostgreSQL
#      (directly and through a pool) and on SQLite in the same run: 0 double
#      claims, no claim slower than 2 s, PostgreSQL's aggregate rate at
#      least SQLite's
#
#   3  claim --next on an agent's login (through the whole-row guards)
#      vs the owner's, on one ledger (issue 30)
#
#   4  claim --next by the owner: the daicho and daicho-pg built in
#      $BENCH_A against this tree's, in one run, directly (daicho-pg) and
#      through a pool of each (daicho; only when asked: bench/pg.sh 4)
#
#   bench/pg.sh            1, 2 and 3
#   bench/pg.sh 2          only the second
#
# Sizes: BENCH_RUNS [200]  BENCH_DRAIN_TASKS [20000]  BENCH_DRAIN_PROCS [32]
# BENCH_DRAIN_BUDGET [300] seconds. Appends its report to bench/out/pg.log.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
OUT=${BENCH_OUT:-$here/out}
RUNS=${BENCH_RUNS:-200}
DRAIN_TASKS=${BENCH_DRAIN_TASKS:-20000}
DRAIN_PROCS=${BENCH_DRAIN_PROCS:-32}
DRAIN_BUDGET=${BENCH_DRAIN_BUDGET:-300}
only=" ${*:-1 2 3} "

for tool in hyperfine psql sqlite3 awk; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "bench: $tool is missing (make bench installs it)" >&2; exit 1; }
done
for bin in daicho daicho-pg; do
	[ -x "$root/$bin" ] || { echo "bench: no $root/$bin (run make first)" >&2; exit 1; }
done
unset DAICHO_LEDGER DAICHO_AGENT DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT \
	CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID PGDATABASE
export LC_ALL=C

mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/daicho-bench-pg.XXXXXX)
chmod 755 "$WORK"
CLUSTER=$("$root/tests/pg/cluster.sh" start) || exit 1
trap '"$root/tests/pg/cluster.sh" stop "$CLUSTER"; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC1091
. "$CLUSTER/env"
# Private copies: a rebuild during the run cannot change what is measured.
cp "$root/daicho" "$root/daicho-pg" "$WORK/"
# Outside any repository: 'init' remembers a PostgreSQL ledger's address
# in the repository around it.
cd "$WORK" || exit 1
D=$WORK/daicho
export DAICHO_PG_BIN=$WORK/daicho-pg

LOG=$OUT/pg.log
say() { printf '%s\n' "$*" | tee -a "$LOG"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
now_ns() { date +%s%N; }
hf() {
	awk -v n="$2" -v f="\"$3\":" '
		/"command":/ { i++ }
		i == n && $1 == f { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}
ms() { calc '%.2f' "($1) * 1000"; }
# cpu_ticks: the machine's busy and idle clock ticks so far (/proc/stat).
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat; }
gen_tasks() {
	awk -v n="$1" -v p="$2" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "{\"title\":\"%s %d\",\"priority\":%d}\n", p, i, i % 3 }'
}
# newdb NAME: an empty database; prints its address.
newdb() {
	createdb "$1" || exit 1
	echo "postgresql:///$1?host=$PGHOST&port=$PGPORT&user=$PGUSER"
}

say "== daicho on PostgreSQL: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
say "   daicho $("$D" --version | cut -d' ' -f2) at $(git -C "$root" rev-parse --short HEAD 2>/dev/null); PostgreSQL $(psql -X -At -c 'SHOW server_version' postgres) on a Unix socket (fsync off, as the test cluster); libpq $(dpkg-query -W -f='${Version}' libpq5 2>/dev/null)"

# unclaim_script FILE DB...: writes FILE, a script that puts every claimed
# task of each DB back out of reach (reported, no lease), so that each run
# of a claim finds the same ledger (hyperfine -N runs --prepare without a
# shell, so it is a script).
unclaim_script() {
	local f=$1
	shift
	printf '#!/bin/sh\nfor db in %s; do psql -X -q -d "$db" -c "UPDATE tasks SET state = '"'"'reported'"'"', lease_expires_ms = NULL WHERE state = '"'"'claimed'"'"'" || exit 1; done\n' "$*" >"$f"
	chmod +x "$f"
}

# ------------------------------------------------- 1. claim vs psql UPDATE
bench1() {
	local L LP aid n f c p g v o
	n=$((2 * (RUNS + 5) + 1000))
	L=$(newdb b1)
	"$D" --ledger "$L" init >/dev/null || exit 1
	gen_tasks "$n" "claim bench" >"$WORK/b1.jsonl"
	"$D" --ledger "$L" add --batch "$WORK/b1.jsonl" >/dev/null || exit 1
	"$D" --ledger "$L" --as bench claim --next >/dev/null || exit 1
	# The same ledger again, served by a pool (daicho pool start).
	LP=$(newdb b1p)
	"$D" --ledger "$LP" init >/dev/null || exit 1
	"$D" --ledger "$LP" add --batch "$WORK/b1.jsonl" >/dev/null || exit 1
	"$D" --ledger "$LP" pool start >/dev/null || exit 1
	"$D" --ledger "$LP" --as bench claim --next >/dev/null || exit 1
	aid=$(psql -X -At -d b1 -c "SELECT id FROM agents WHERE name = 'bench' AND state <> 'ended'")
	local now="(extract(epoch FROM clock_timestamp()) * 1000)::int8"
	local sql="UPDATE tasks SET state = 'claimed', owner = $aid, lease_ms = 1800000, lease_expires_ms = $now + 1800000, attempts = attempts + 1, updated_ms = $now WHERE id = (SELECT id FROM tasks WHERE state = 'open' AND unmet_deps = 0 ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id"
	# Before each run: nothing claimed in either ledger.
	unclaim_script "$WORK/unclaim.sh" b1 b1p
	local prep="$WORK/unclaim.sh"
	say ""
	say "== 1. claim --next (whole process) vs psql, one UPDATE ... RETURNING ($n tasks, $RUNS runs, load $(load))"
	f=$WORK/b1.json
	hyperfine -N --style basic --export-json "$f" --warmup 5 --runs "$RUNS" \
		--prepare "$prep" \
		"$D --ledger $L --as bench claim --next" \
		"$WORK/daicho-pg --ledger $L --as bench claim --next" \
		"psql -X -q -At -d b1 -c \"$sql\"" \
		"$WORK/daicho-pg --version" \
		"$D --ledger $LP --as bench claim --next" >"$WORK/b1.txt" 2>&1 ||
		{ cat "$WORK/b1.txt"; exit 1; }
	"$D" --ledger "$LP" pool stop >/dev/null
	c=$(hf "$f" 1 median) g=$(hf "$f" 2 median) p=$(hf "$f" 3 median) v=$(hf "$f" 4 median) o=$(hf "$f" 5 median)
	say "   daicho claim --next       median $(ms "$c") ms  (daicho hands the command to daicho-pg)"
	say "   daicho-pg claim --next    median $(ms "$g") ms"
	say "   psql UPDATE ... RETURNING median $(ms "$p") ms"
	say "   daicho-pg --version       median $(ms "$v") ms  (a dynamically linked process with libpq)"
	say "   daicho claim --next, pool median $(ms "$o") ms  (through 'daicho pool start')"
	say "   ratio daicho / psql: $(calc '%.2f' "$c / $p") x; daicho-pg / psql: $(calc '%.2f' "$g / $p") x; through the pool / psql: $(calc '%.2f' "$o / $p") x   (target <= 1.0)"
}

# --------------------------------------------------- 2. concurrent draining
# claimer NAME LEDGER DIR DEADLINE: claim until nothing is ready (exit 3),
# writing each claim's id and its wall time in microseconds.
claimer() {
	local rc t0 t1 id now
	while :; do
		printf -v now '%(%s)T' -1
		[ "$now" -lt "$4" ] || { echo "$1" >>"$3/stopped"; return 0; }
		t0=$EPOCHREALTIME
		id=$("$D" --ledger "$2" --as "$1" claim --next 2>>"$3/$1.err")
		rc=$?
		t1=$EPOCHREALTIME
		case $rc in
		0) echo "$id" >>"$3/$1.ids"
		   echo "$(( (${t1/./} - ${t0/./}) ))" >>"$3/$1.us" ;;
		3) return 0 ;;
		75) echo "$rc" >>"$3/$1.rc" ;;
		*) echo "$rc" >>"$3/$1.rc"; return 1 ;;
		esac
	done
}

# drain KIND LEDGER: DRAIN_PROCS claimers drain DRAIN_TASKS tasks.
drain() {
	local kind=$1 L=$2 dir=$WORK/b2-$1 i deadline t0 t1 printed unique doubles errs slow max rate busy0 idle0 busy1 idle1
	mkdir -p "$dir"
	"$D" --ledger "$L" init >/dev/null || exit 1
	gen_tasks "$DRAIN_TASKS" drain >"$dir/tasks.jsonl"
	"$D" --ledger "$L" add --batch "$dir/tasks.jsonl" >/dev/null || exit 1
	[ "$kind" != postgresql_pool ] || "$D" --ledger "$L" pool start >/dev/null || exit 1
	printf -v deadline '%(%s)T' -1
	deadline=$((deadline + DRAIN_BUDGET))
	read -r busy0 idle0 <<<"$(cpu_ticks)"
	t0=$(now_ns)
	for i in $(seq 1 "$DRAIN_PROCS"); do
		claimer "c$i" "$L" "$dir" "$deadline" &
	done
	wait
	t1=$(now_ns)
	read -r busy1 idle1 <<<"$(cpu_ticks)"
	[ "$kind" != postgresql_pool ] || "$D" --ledger "$L" pool stop >/dev/null
	printed=$(cat "$dir"/*.ids | wc -l)
	unique=$(cat "$dir"/*.ids | sort -u | wc -l)
	doubles=$((printed - unique))
	errs=$(cat "$dir"/*.rc 2>/dev/null | wc -l)
	max=$(cat "$dir"/*.us | sort -n | tail -1)
	slow=$(awk '$1 > 2000000' "$dir"/*.us | wc -l)
	rate=$(calc '%.0f' "$printed / (($t1 - $t0) / 1e9)")
	say "   $kind: $printed claims in $(calc '%.2f' "($t1 - $t0) / 1e9") s = $rate claims/s; double claims $doubles; exit 75 retries $errs; slowest claim $(calc '%.0f' "$max / 1000") ms; claims over 2 s: $slow; p50 $(cat "$dir"/*.us | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int(NR / 2) + 1] / 1000 }') ms"
	say "   $kind: CPU busy $(calc '%.1f' "100 * ($busy1 - $busy0) / ($busy1 - $busy0 + $idle1 - $idle0)") %, $(calc '%.2f' "($busy1 - $busy0) * 1000 / $(getconf CLK_TCK) / $printed") ms of CPU a claim (claimer loops, daicho, the pool and PostgreSQL)"
	[ -s "$dir/stopped" ] && say "   $kind: NOT DRAINED within $DRAIN_BUDGET s"
	eval "RATE_$kind=$rate"
}

bench2() {
	say ""
	say "== 2. $DRAIN_PROCS concurrent claimers draining $DRAIN_TASKS tasks (load $(load))"
	drain sqlite "$WORK/drain.db"
	drain postgresql "$(newdb b2)"
	drain postgresql_pool "$(newdb b2p)"
	say "   PostgreSQL / SQLite aggregate rate: $(calc '%.2f' "$RATE_postgresql / $RATE_sqlite") x direct, $(calc '%.2f' "$RATE_postgresql_pool / $RATE_sqlite") x through a pool   (target >= 1.0)"
}

# ------------------------------------- 3. the guards: an agent's login
# claim --next on an agent's own login (daicho_agent: every write of the
# claim goes through the whole-row guards, schema 7) and on the owner's
# (the guards' WHEN clause skips them), on one ledger, in one hyperfine
# run, interleaved by hyperfine's own order.
bench3() {
	local L LA n f o a role=bench_agent_$$
	n=$((2 * (RUNS + 5) + 1000))
	L=$(newdb b3)
	"$D" --ledger "$L" init >/dev/null || exit 1
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $role LOGIN" \
	    -c "GRANT daicho_agent TO $role" || exit 1
	LA="$L&user=$role"
	gen_tasks "$n" "guard bench" >"$WORK/b3.jsonl"
	"$D" --ledger "$L" add --batch "$WORK/b3.jsonl" >/dev/null || exit 1
	"$D" --ledger "$L" --as owner claim --next >/dev/null || exit 1
	"$D" --ledger "$LA" --as agent claim --next >/dev/null || exit 1
	unclaim_script "$WORK/unclaim3.sh" b3
	say ""
	say "== 3. claim --next on an agent's login (the whole-row guards) vs the owner's ($n tasks, $RUNS runs, load $(load))"
	f=$WORK/b3.json
	hyperfine -N --style basic --export-json "$f" --warmup 5 --runs "$RUNS" \
		--prepare "$WORK/unclaim3.sh" \
		"$D --ledger $L --as owner claim --next" \
		"$D --ledger $LA --as agent claim --next" >"$WORK/b3.txt" 2>&1 ||
		{ cat "$WORK/b3.txt"; exit 1; }
	o=$(hf "$f" 1 median) a=$(hf "$f" 2 median)
	say "   the owner's login   median $(ms "$o") ms"
	say "   an agent's login    median $(ms "$a") ms"
	say "   ratio agent / owner: $(calc '%.2f' "$a / $o") x"
}

# ----------------------------- 4. this daicho against another (BENCH_A)
# claim --next by the owner with BENCH_A's daicho-pg (a tree where it was
# built) and with this one's, each on a ledger its own binary made, in one
# hyperfine run: what a change costs the owner's claims. Then the same
# through a pool: each tree's static daicho, talking to a pool that its
# own daicho-pg serves (each command started through env(1) alike, so
# that each uses its own daicho-pg, should its pool not answer).
bench4() {
	local LA LB LAP LBP n f a b pa pb A=$WORK/a-daicho-pg AD=$WORK/a-daicho
	[ -n "${BENCH_A:-}" ] && [ -x "$BENCH_A/daicho-pg" ] && [ -x "$BENCH_A/daicho" ] ||
		{ echo "bench 4: set BENCH_A to a tree with a built daicho and daicho-pg" >&2; exit 2; }
	cp "$BENCH_A/daicho-pg" "$A"
	cp "$BENCH_A/daicho" "$AD"
	n=$((2 * (RUNS + 5) + 1000))
	gen_tasks "$n" "ab bench" >"$WORK/b4.jsonl"
	LA=$(newdb b4a) LB=$(newdb b4b)
	"$A" --ledger "$LA" init >/dev/null && "$A" --ledger "$LA" add --batch "$WORK/b4.jsonl" >/dev/null || exit 1
	"$WORK/daicho-pg" --ledger "$LB" init >/dev/null &&
		"$WORK/daicho-pg" --ledger "$LB" add --batch "$WORK/b4.jsonl" >/dev/null || exit 1
	"$A" --ledger "$LA" --as bench claim --next >/dev/null || exit 1
	"$WORK/daicho-pg" --ledger "$LB" --as bench claim --next >/dev/null || exit 1
	unclaim_script "$WORK/unclaim4.sh" b4a b4b
	say ""
	say "== 4. claim --next by the owner: $(git -C "$BENCH_A" rev-parse --short HEAD 2>/dev/null) (A) vs this daicho (B) ($n tasks, $RUNS runs, load $(load))"
	f=$WORK/b4.json
	hyperfine -N --style basic --export-json "$f" --warmup 5 --runs "$RUNS" \
		--prepare "$WORK/unclaim4.sh" \
		"$A --ledger $LA --as bench claim --next" \
		"$WORK/daicho-pg --ledger $LB --as bench claim --next" >"$WORK/b4.txt" 2>&1 ||
		{ cat "$WORK/b4.txt"; exit 1; }
	a=$(hf "$f" 1 median) b=$(hf "$f" 2 median)
	say "   directly (daicho-pg): A median $(ms "$a") ms; B median $(ms "$b") ms; ratio B / A: $(calc '%.3f' "$b / $a") x"
	LAP=$(newdb b4ap) LBP=$(newdb b4bp)
	DAICHO_PG_BIN=$A "$AD" --ledger "$LAP" init >/dev/null &&
		DAICHO_PG_BIN=$A "$AD" --ledger "$LAP" add --batch "$WORK/b4.jsonl" >/dev/null &&
		DAICHO_PG_BIN=$A "$AD" --ledger "$LAP" pool start >/dev/null || exit 1
	"$D" --ledger "$LBP" init >/dev/null && "$D" --ledger "$LBP" add --batch "$WORK/b4.jsonl" >/dev/null &&
		"$D" --ledger "$LBP" pool start >/dev/null || exit 1
	DAICHO_PG_BIN=$A "$AD" --ledger "$LAP" --as bench claim --next >/dev/null || exit 1
	"$D" --ledger "$LBP" --as bench claim --next >/dev/null || exit 1
	unclaim_script "$WORK/unclaim4p.sh" b4ap b4bp
	f=$WORK/b4p.json
	hyperfine -N --style basic --export-json "$f" --warmup 5 --runs "$RUNS" \
		--prepare "$WORK/unclaim4p.sh" \
		"env DAICHO_PG_BIN=$A $AD --ledger $LAP --as bench claim --next" \
		"env DAICHO_PG_BIN=$WORK/daicho-pg $D --ledger $LBP --as bench claim --next" >"$WORK/b4p.txt" 2>&1 ||
		{ cat "$WORK/b4p.txt"; exit 1; }
	DAICHO_PG_BIN=$A "$AD" --ledger "$LAP" pool stop >/dev/null
	"$D" --ledger "$LBP" pool stop >/dev/null
	pa=$(hf "$f" 1 median) pb=$(hf "$f" 2 median)
	say "   through a pool (daicho): A median $(ms "$pa") ms; B median $(ms "$pb") ms; ratio B / A: $(calc '%.3f' "$pb / $pa") x"
}

case $only in *" 1 "*) bench1 ;; esac
case $only in *" 2 "*) bench2 ;; esac
case $only in *" 3 "*) bench3 ;; esac
case $only in *" 4 "*) bench4 ;; esac
say ""
