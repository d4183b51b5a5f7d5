#!/usr/bin/env bats
# Landing under crashes and under competition.
#
# kill -9 of the lander at random moments of its work (merging, checking,
# moving the trunk, recording): the trunk never half-moves (every commit it
# points at passed the land-check), no task lands twice (one trunk commit
# names each), and the queue resumes: once a lander runs to its end, every
# task has landed and the checkout is clean.
#
# Two landers, one PostgreSQL ledger: two clones of one bare remote land
# 100 tasks at once, pushing to the remote: no task lands twice, and the
# remote's trunk is green at every commit.
#
# DAICHO_STRESS_LAND_KILLS (default 40) steers the first.

load common

KILLS=${DAICHO_STRESS_LAND_KILLS:-40}

# land_repo DIR: a repository with a check of the whole tree (no file may
# say "red"), its ledger (SQLite: inside it; PostgreSQL: the suite's,
# reached from inside it), landing paused. Sets DAICHO_LEDGER; cd DIR.
land_repo() {
	mkdir -p "$1"
	git -C "$1" init -q -b main
	git -C "$1" config user.name Tester
	git -C "$1" config user.email tester@example.com
	printf '#!/bin/sh\n! grep -rlx red --exclude-dir=.git . >/dev/null\n' >"$1/check.sh"
	git -C "$1" add check.sh
	git -C "$1" commit -qm start
	cd "$1" || return 1
	if ! backend_is_postgresql; then
		export DAICHO_LEDGER="$1/.git/daicho/ledger.db"
	fi
	"$D" init >/dev/null
	person "$D" config land-check 'sh check.sh'
	person "$D" config jobs 1
	person "$D" land --pause >/dev/null
}

# verified_tasks N [REPO]: N tasks, each adding f$i.txt on a branch of its
# own in REPO (default: here), claimed, reported and verified; their
# branches pushed to origin when there is one.
verified_tasks() {
	local n=$1 repo=${2:-.} i c
	for ((i = 1; i <= n; i++)); do
		printf '{"title":"file %d","done_when":["file:f%d.txt"]}\n' "$i" "$i"
	done >"$T/tasks.jsonl"
	"$D" add --batch "$T/tasks.jsonl" >/dev/null
	for ((i = 1; i <= n; i++)); do
		[ "$("$D" --as "w$i" claim "$i")" = "$i" ] || return 1
		c=$(git -C "$repo" commit-tree \
			"$(cd "$repo" && idx=$T/idx.$i && rm -f "$idx" &&
				GIT_INDEX_FILE=$idx git read-tree main &&
				GIT_INDEX_FILE=$idx git update-index --add --cacheinfo \
					"100644,$(echo "file $i" | git hash-object -w --stdin),f$i.txt" &&
				GIT_INDEX_FILE=$idx git write-tree)" -p main -m "#$i")
		git -C "$repo" update-ref "refs/heads/work/$i" "$c"
		"$D" --as "w$i" report "$i" --commit "$c" || return 1
	done
	if git -C "$repo" remote get-url origin >/dev/null 2>&1; then
		git -C "$repo" push -q origin 'refs/heads/work/*:refs/heads/work/*'
	fi
	"$D" sweep >/dev/null
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'")" -eq "$n" ]
}

# trunk_green REPO REF FROM: every commit REF's first parents went through
# since FROM passes check.sh; each task is named by at most one of them.
trunk_green() {
	local repo=$1 ref=$2 from=$3 c dir=$T/green
	for c in $(git -C "$repo" rev-list --first-parent "$from..$ref"); do
		[ -e "$T/green.$c" ] && continue
		rm -rf "$dir"
		mkdir -p "$dir"
		git -C "$repo" archive "$c" | tar -x -C "$dir"
		(cd "$dir" && sh check.sh) || fail_with "trunk commit $c is red"
		touch "$T/green.$c"
	done
	dups=$(git -C "$repo" log --first-parent --format=%B "$from..$ref" |
		{ grep '^Daicho-Land: #' || true; } | cut -d' ' -f2 | sort | uniq -d)
	[ -z "$dups" ] || fail_with "landed twice: $dups"
}

# landed_event_counts: "ID|N|COMMIT" for every task, N its landed events
# and COMMIT its landed commit, in one query.
landed_event_counts() {
	q "SELECT t.id, (SELECT count(*) FROM events e WHERE e.task = t.id AND e.kind = 'landed'),
		coalesce(t.landed_commit, '') FROM tasks t ORDER BY t.id"
}

@test "kill -9 of the lander at random moments: the trunk never half-moves, no task lands twice, the queue resumes" {
	stress_setup
	land_repo "$T/repo"
	n=30
	verified_tasks "$n"
	start=$(git rev-parse main)
	person "$D" land --resume >/dev/null
	# A land-check slow enough for a kill to land in every step.
	person "$D" config land-check 'sleep 0.0$((RANDOM % 10)); sh check.sh'
	person "$D" config land-batch 4
	for ((k = 1; k <= KILLS; k++)); do
		"$D" land >/dev/null 2>&1 &
		pid=$!
		nap "0.$((RANDOM % 4))$((RANDOM % 10))"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		trunk_green . main "$start"
		# The ledger never says landed for work the trunk lacks (one
		# query: a client's start is most of the loop's cost).
		while IFS='|' read -r id lc; do
			[ -n "$id" ] || continue
			git merge-base --is-ancestor "$lc" main ||
				fail_with "#$id is recorded landed at $lc, which main lacks"
		done <<<"$(q "SELECT id, landed_commit FROM tasks WHERE state = 'landed'")"
	done
	# One lander to the end: everything landed, once each.
	run "$D" land
	[ "$status" -eq 0 ] || fail_with "land: $output"
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'landed'")" -eq "$n" ] ||
		fail_with "not all landed: $(q "SELECT id || ' ' || state FROM tasks WHERE state <> 'landed'")"
	trunk_green . main "$start"
	local trunk_log landed_events
	trunk_log=$(git log --first-parent --format=%B "$start..main")
	landed_events=$(landed_event_counts)
	for ((i = 1; i <= n; i++)); do
		[ "$(grep -c "^Daicho-Land: #$i " <<<"$trunk_log")" -eq 1 ] ||
			fail_with "#$i is not named by exactly one trunk commit"
		[ "$(grep -c "^$i|1|" <<<"$landed_events")" -eq 1 ] ||
			fail_with "#$i has not exactly one landed event"
	done
	[ -z "$(git status --porcelain --untracked-files=no)" ] || fail_with "checkout: $(git status --porcelain)"
	[ "$(git symbolic-ref HEAD)" = refs/heads/main ]
}

@test "two landers on two clones, one PostgreSQL ledger, one remote: 100 tasks, none landed twice, the remote green at every commit" {
	backend_is_postgresql || skip "needs PostgreSQL: two machines share a ledger there"
	stress_setup
	git init -q --bare -b main "$T/remote.git"
	land_repo "$T/a"
	git remote add origin "$T/remote.git"
	git push -q origin main
	git clone -q "$T/remote.git" "$T/b"
	git -C "$T/b" config user.name Tester
	git -C "$T/b" config user.email tester@example.com
	(cd "$T/b" && "$D" init >/dev/null)
	person "$D" config remote origin
	n=100
	person "$D" config land-batch 8
	verified_tasks "$n"
	start=$(git rev-parse main)
	person "$D" land --resume >/dev/null
	# Both clones land at once, pass after pass, until the queue is empty.
	lander() {
		cd "$1" || return 1
		for _ in $(seq 1 200); do
			"$D" land >>"$T/lander.$2" 2>&1 || true
			[ "$(q "SELECT count(*) FROM tasks WHERE state = 'verified'")" -eq 0 ] && break
			nap 0.05
		done
	}
	lander "$T/a" a &
	pa=$!
	lander "$T/b" b &
	pb=$!
	wait "$pa" "$pb"
	[ "$(q "SELECT count(*) FROM tasks WHERE state = 'landed'")" -eq "$n" ] ||
		fail_with "not all landed: $(cat "$T/lander.a" "$T/lander.b" | tail -5)"
	trunk_green "$T/remote.git" main "$start"
	local landed_events lc
	landed_events=$(landed_event_counts)
	for ((i = 1; i <= n; i++)); do
		lc=$(grep "^$i|1|" <<<"$landed_events" | cut -d'|' -f3) ||
			fail_with "#$i has not exactly one landed event: $(grep "^$i|" <<<"$landed_events")"
		git -C "$T/remote.git" merge-base --is-ancestor "$lc" main ||
			fail_with "#$i's landed commit is not on the remote's main"
	done
}
