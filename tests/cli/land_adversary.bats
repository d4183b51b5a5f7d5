#!/usr/bin/env bats
# Landing under attack: what an agent under pressure, or a careless person,
# does to the queue, the trunk and the person's checkout, and what a user
# still relies on afterwards (docs/landing.md): the trunk is never red and
# never clobbered, no task lands twice, new work is judged against the
# trunk as it is now, sent-back work spends no attempt, dependents start
# from landed work, and only a person steers landing.
#
# Each test names above it the plausible bug in daicho it catches. Tests
# marked "BUG:" assert what the documentation promises and fail against
# the daicho they were written for; they are kept failing on purpose (see
# the comment above each for what happens instead).

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

# The attacks are on git state, the trunk and the judge's repository; what
# PostgreSQL changes of landing (the queue, the landing lock) is
# land.bats's and land_lanes.bats's in its pass.
setup() {
	any_backend "the attacks are on git state, not the ledger's back end"
	land_setup
}

# A test that failed while a lander it started in the background waited in
# its land-check (on $TEST_ROOT/go) leaves nothing running.
teardown() {
	[ -n "${TEST_ROOT:-}" ] && touch "$TEST_ROOT/go" 2>/dev/null
	if [ -n "${pid:-}" ]; then
		kill "$pid" 2>/dev/null || true
	fi
	return 0
}

# green_at COMMIT CMD: CMD (a shell command) passes in a fresh checkout of
# COMMIT.
green_at() {
	local dir="$TEST_ROOT/green-$1" rc=0
	git -C "$REPO" worktree add -q --detach "$dir" "$1" || fail "no checkout of $1"
	(cd "$dir" && sh -c "$2") >/dev/null 2>&1 || rc=1
	git -C "$REPO" worktree remove --force "$dir"
	return "$rc"
}

# assert_trunk_green FROM CMD: every commit main's first-parent history
# pointed at since FROM passes CMD on exactly its tree.
assert_trunk_green() {
	local c
	for c in $(first_parents "$1"); do
		green_at "$c" "$2" || fail "trunk commit $c fails '$2'"
	done
}

# worker_commit ID BASE SCRIPT: what a worker of task ID does in a checkout
# of its own at BASE: run SCRIPT (sh) there and commit everything (adds,
# changes, deletions) as one commit, on branch work/ID. Prints the commit.
worker_commit() {
	local id="$1" base="$2" dir="$TEST_ROOT/worker-$1" commit
	rm -rf "$dir"
	git -C "$REPO" worktree add -q --detach "$dir" "$base" >/dev/null 2>&1 ||
		{ fail "worker_commit: no checkout of $base"; return 1; }
	(cd "$dir" && sh -c "$3" && git add -A . && git commit -qm "#$id work") >/dev/null ||
		{ fail "worker_commit $id: '$3' failed"; return 1; }
	commit="$(git -C "$dir" rev-parse HEAD)"
	git -C "$REPO" update-ref "refs/heads/work/$id" "$commit"
	git -C "$REPO" worktree remove --force "$dir"
	echo "$commit"
}

# landed_count ID: how many 'landed' events task ID has.
landed_count() {
	event_kinds "$1" | tr ' ' '\n' | grep -c '^landed$' || true
}

# wait_for FILE: poll (at most ~10 s) until FILE exists.
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "$1 never appeared"
}

# ---------------------------------------------------------------------------
# 1. The trunk is never red.

# catches: the land-check run on the reported commit's own tree (or on the
# trunk the task forked from) instead of the tree merged onto the trunk as
# it is now, so a task that breaks a test landed after it forked lands red.
@test "a task whose own checks pass alone but whose merged tree breaks a test another task landed is sent back; the trunk stays green" {
	printf 'add() { echo $(($1 + $2)); }\n' >"$REPO/lib.sh"
	printf 'for t in tests/*.sh; do [ -e "$t" ] || continue; sh "$t" || exit 1; done\n' >"$REPO/test-all.sh"
	git -C "$REPO" add lib.sh test-all.sh && git -C "$REPO" commit -qm project
	start="$(trunk)"
	person daicho config land-check 'sh test-all.sh'
	daicho add 'test add' --done-when 'cmd:sh tests/add.sh' --touches tests/add.sh >/dev/null
	daicho add 'concat instead' --done-when 'cmd:. ./lib.sh && [ "$(add 1 2)" = 12 ]' --touches lib.sh >/dev/null
	daicho claim 2 --as w2 >/dev/null
	claim_work 1 w1 tests/add.sh '. ./lib.sh; [ "$(add 2 2)" = 4 ]' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "the honest task did not land: $(state 1)"
	# #2 forked before #1 landed, and never saw tests/add.sh.
	c2="$(work 2 lib.sh 'add() { echo "$1$2"; }' "$start")"
	daicho report 2 --as w2 --commit "$c2"
	run daicho sweep
	assert_output --partial "1 verified"
	assert_output --partial "0 landed, 1 sent back (0 conflicts, 1 failing the merged tree)"
	[ "$(state 2)" = open ]
	[ "$(last_event 2 | jq -r .kind)" = land-failed ]
	run daicho prompt 2
	assert_output --partial "land-check: cmd:sh test-all.sh"
	assert_trunk_green "$start" 'sh test-all.sh'
	assert_clean_checkout
}

# catches: the warm checkout reused from one batch to the next without
# removing what the last check left (untracked, ignored): a land-check that
# keeps a cache there passes a later tree only because of it.
@test "a land-check's cache left in the lander's checkout by an earlier batch does not make a later tree pass" {
	printf 'ok\n' >"$REPO/ok.txt"
	printf '.cache/\n' >"$REPO/.gitignore"
	git -C "$REPO" add ok.txt .gitignore && git -C "$REPO" commit -qm ok
	start="$(trunk)"
	# Passes when ok.txt is there, or when an earlier run said so.
	person daicho config land-check '{ test -e ok.txt || test -e .cache/ok; } && mkdir -p .cache && touch .cache/ok'
	person daicho config land-batch 1
	daicho add a --done-when file:a.txt >/dev/null
	daicho add b --done-when file:b.txt >/dev/null
	person daicho land --pause >/dev/null
	claim_work 1 w1 a.txt a >/dev/null
	daicho claim 2 --as w2 >/dev/null
	c2="$(worker_commit 2 main 'echo b >b.txt && rm ok.txt')"
	daicho report 2 --as w2 --commit "$c2"
	daicho sweep >/dev/null
	person daicho land --resume >/dev/null
	run daicho land --json
	assert_success
	[ "$(jq .landed <<<"$output")" = 1 ] || fail "landed: $output"
	[ "$(jq .check_failed <<<"$output")" = 1 ] || fail "check_failed: $output"
	[ "$(state 1)" = landed ]
	[ "$(state 2)" = open ]
	git -C "$REPO" cat-file -e main:ok.txt || fail "the trunk lost ok.txt"
	assert_trunk_green "$start" 'test -e ok.txt'
}

# catches: the checkout not made again between a task's cmd: check and the
# land-check of the same batch: a file a check leaves (untracked) stands in
# for one the merged tree deleted.
@test "a file one task's check leaves in the lander's checkout does not make the land-check pass for the batch" {
	printf 'ok\n' >"$REPO/ok.txt"
	git -C "$REPO" add ok.txt && git -C "$REPO" commit -qm ok
	start="$(trunk)"
	person daicho config land-check 'test -e ok.txt'
	daicho add toucher --done-when file:a.txt --done-when 'cmd:touch ok.txt' >/dev/null
	daicho add deleter --done-when file:b.txt >/dev/null
	person daicho land --pause >/dev/null
	claim_work 1 w1 a.txt a >/dev/null
	daicho claim 2 --as w2 >/dev/null
	c2="$(worker_commit 2 main 'echo b >b.txt && rm ok.txt')"
	daicho report 2 --as w2 --commit "$c2"
	daicho sweep >/dev/null
	[ "$(state 2)" = verified ] || fail "#2 was not verified: $(daicho show 2)"
	person daicho land --resume >/dev/null
	run daicho land
	assert_output "land: 1 landed, 1 sent back (0 conflicts, 1 failing the merged tree)"
	[ "$(state 1)" = landed ]
	[ "$(state 2)" = open ]
	assert_trunk_green "$start" 'test -e ok.txt'
}

# catches: protected paths judged only on the files a commit modifies, not
# on files it adds: a worker adds a file the land-check's script picks up
# (an override) and the land-check waves broken work through.
@test "a commit that adds a file the land-check's script reads, in a protected directory, is rejected before it can land" {
	mkdir -p "$REPO/ci"
	printf '[ -e ci/skip ] && exit 0\n! test -e bad.txt\n' >"$REPO/ci/check.sh"
	git -C "$REPO" add ci && git -C "$REPO" commit -qm ci
	start="$(trunk)"
	person daicho config protect 'ci/**'
	person daicho config land-check 'sh ci/check.sh'
	daicho add sneaky --done-when file:bad.txt >/dev/null
	daicho add honest --done-when file:good.txt >/dev/null
	daicho claim 1 --as w1 >/dev/null
	c1="$(worker_commit 1 main 'echo broken >bad.txt && echo "exit 0" >ci/skip')"
	daicho report 1 --as w1 --commit "$c1"
	claim_work 2 w2 good.txt good >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = claimed ] || fail "the override was not rejected: #1 is $(state 1)"
	run daicho show 1
	assert_output --partial "changes ci/skip, which the ledger protects"
	[ "$(state 2)" = landed ] || fail "the honest task did not land: $(state 2)"
	! git -C "$REPO" log --format=%H main -- ci/skip bad.txt | grep -q . ||
		fail "the trunk's history holds the override or the broken work"
	assert_trunk_green "$start" 'sh ci/check.sh'
}

# BUG: src/core/verify.c, check_protected() (~line 755): a protected path is
# accepted when it is "as the trunk had it at the claim", judged by a plain
# diff against the claim's trunk. A worker claimed before a person's stricter
# test landed forks from the trunk as it is now and puts the test back as it
# was at the claim: nothing "changed" against the claim, so it passes, and
# the merge onto the trunk (the fork point holds the stricter test) reverts
# the landed test on the trunk. The land-check then runs the weakened test:
# broken work lands and the trunk's judge is weakened. It should be rejected
# (a protected path must come out of the merge onto the trunk now as the
# trunk has it), or at least never land.
# catches: protected paths compared with the claim's trunk alone.
@test "a worker may not revert a landed stricter test by forking from the trunk now and restoring the test as it was at its claim" {
	printf 'true\n' >"$REPO/check.sh"
	git -C "$REPO" add check.sh && git -C "$REPO" commit -qm check
	person daicho config protect check.sh
	person daicho config land-check 'sh check.sh'
	strict='test ! -e a.txt || grep -qx good a.txt'
	person daicho add --no-baseline stricter --touches check.sh --done-when file:check.sh >/dev/null
	person daicho add --no-baseline feature --done-when file:a.txt >/dev/null
	daicho claim 2 --as w2 >/dev/null
	claim_work 1 w1 check.sh "$strict" >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "the stricter test did not land: $(state 1)"
	# #2's worker: from the trunk now, bad work, and check.sh as at its claim.
	work 2 a.txt bad main >/dev/null
	c2="$(work 2 check.sh true work/2)"
	daicho report 2 --as w2 --commit "$c2"
	daicho sweep >/dev/null
	[ "$(git -C "$REPO" show main:check.sh)" = "$strict" ] ||
		fail "BUG: the landed stricter check.sh was reverted on the trunk by #2 (now: '$(git -C "$REPO" show main:check.sh)'; #2 is $(state 2))"
	[ "$(state 2)" != landed ] || fail "BUG: #2 landed work that fails the stricter test"
}

# ---------------------------------------------------------------------------
# 2. The trunk is never clobbered, never forced.

# BUG: src/core/land.c, move_trunk() (~line 1198): the main work tree is
# made to follow the trunk from the tip the batch was merged onto (git
# read-tree -m -u OLD NEW) before the compare-and-swap finds that the trunk
# moved. When a person committed meanwhile to a path the landing also
# changes, read-tree fails and the pass stops with "waits for a person"
# ("the main work tree cannot follow main ... commit or stash what is in the
# way") although nothing is in the way: the trunk merely moved. It should
# merge onto the person's commit and check again in the same pass (the doc:
# "If anyone moved the trunk meanwhile ... the batch is merged onto the new
# trunk and checked again"), as it does when the person's commit touches
# another path.
# catches: a lost compare-and-swap treated as a dirty work tree.
@test "a person's commit to the same file, made while the merged tree is checked, is kept and merged onto in the same pass" {
	printf 'a\nb\nc\nd\ne\n' >"$REPO/f.txt"
	git -C "$REPO" add f.txt && git -C "$REPO" commit -qm f
	unsandboxed
	person daicho config land-check "test -e $TEST_ROOT/moved || { touch $TEST_ROOT/moved; printf 'a\nb\nc\nd\nE\n' >$REPO/f.txt; git -C $REPO commit -qam meanwhile; }"
	person daicho add --no-baseline t --done-when file:f.txt >/dev/null
	claim_work 1 w1 f.txt "$(printf 'A\nb\nc\nd\ne')" >/dev/null
	run daicho sweep --json
	assert_success
	meanwhile="$(git -C "$REPO" log --format=%H --grep=meanwhile -n1 main)"
	[ -n "$meanwhile" ] || fail "the person's commit is gone from main"
	git -C "$REPO" merge-base --is-ancestor "$meanwhile" main || fail "main was forced"
	assert_clean_checkout
	[ "$(state 1)" = landed ] ||
		fail "BUG: #1 did not land after the trunk moved under it (state $(state 1); status: $(daicho status --json | jq -c '[.needs_you[].summary]'))"
	[ "$(git -C "$REPO" show main:f.txt)" = "$(printf 'A\nb\nc\nd\nE')" ]
	[ "$(git -C "$REPO" rev-parse main^1)" = "$meanwhile" ]
}

# catches: only unstaged edits counted as in the way (diff-files), so a
# staged change, or a file moved away, is overwritten by read-tree's update.
@test "a staged change and a file moved away in the person's checkout, at paths a landing changes: it waits and overwrites nothing" {
	printf 'v1\n' >"$REPO/notes.txt"
	git -C "$REPO" add notes.txt && git -C "$REPO" commit -qm notes
	person daicho add --no-baseline edit --done-when file:notes.txt >/dev/null
	person daicho add --no-baseline new --done-when file:staged.txt >/dev/null
	claim_work 1 w1 notes.txt v2 >/dev/null
	claim_work 2 w2 staged.txt theirs >/dev/null
	before="$(trunk)"
	mv "$REPO/notes.txt" "$REPO/moved.txt"
	printf 'mine, staged\n' >"$REPO/staged.txt"
	git -C "$REPO" add staged.txt
	printf 'mine, edited after staging\n' >"$REPO/staged.txt"
	run daicho sweep
	assert_output --partial "2 waiting for a person"
	[ "$(trunk)" = "$before" ] || fail "the trunk moved"
	[ "$(state 1)" = verified ] || fail "#1 is $(state 1)"
	[ "$(state 2)" = verified ] || fail "#2 is $(state 2)"
	[ ! -e "$REPO/notes.txt" ] || fail "the moved file came back"
	[ "$(cat "$REPO/moved.txt")" = v1 ]
	[ "$(cat "$REPO/staged.txt")" = 'mine, edited after staging' ]
	[ "$(git -C "$REPO" show :staged.txt)" = 'mine, staged' ] || fail "the staged change was lost"
	[ "$(daicho status --json | jq -r '[.needs_you[] | select(.kind == "land-waiting")] | length')" = 2 ]
	# Put away, the next pass lands both.
	git -C "$REPO" reset -q
	rm "$REPO/staged.txt" "$REPO/moved.txt"
	git -C "$REPO" checkout -q -- notes.txt
	run daicho land
	assert_output "land: 2 landed, 0 sent back"
	assert_clean_checkout
}

# catches: untracked files listed with git's ignore rules (ls-files
# --exclude-standard), so an ignored file, or one in an ignored directory, at
# a path the landing adds is not "in the way" and is overwritten.
@test "ignored files at paths a landing adds are never overwritten: it waits" {
	printf '*.log\nbuild/\n' >"$REPO/.gitignore"
	git -C "$REPO" add .gitignore && git -C "$REPO" commit -qm ignores
	daicho add log --done-when file:out.log >/dev/null
	daicho add build --done-when file:build/x >/dev/null
	claim_work 1 w1 out.log theirs >/dev/null
	claim_work 2 w2 build/x theirs >/dev/null
	printf 'my log\n' >"$REPO/out.log"
	mkdir "$REPO/build" && printf 'my build\n' >"$REPO/build/x"
	before="$(trunk)"
	run daicho sweep
	assert_output --partial "2 waiting for a person"
	[ "$(trunk)" = "$before" ] || fail "the trunk moved"
	[ "$(cat "$REPO/out.log")" = 'my log' ] || fail "the ignored file was overwritten"
	[ "$(cat "$REPO/build/x")" = 'my build' ] || fail "the file in an ignored directory was overwritten"
	rm -r "$REPO/out.log" "$REPO/build"
	run daicho land
	assert_output "land: 2 landed, 0 sent back"
	[ "$(cat "$REPO/out.log")" = theirs ]
}

# BUG: src/core/land.c, move_trunk() (~line 1180) with
# src/util/gitmerge.c, gitm_uncommitted_paths()/gitm_differ_from(): an
# untracked directory is one entry "DIR/", matched as a prefix of every path
# the landing changes under it; gitm_differ_from() then reports a path the
# landing adds as "differing" merely because the index lacks it. So a
# person's own untracked docs/mine.txt makes a landing that adds
# docs/theirs.txt wait, with NEEDS YOU claiming "uncommitted changes to
# docs/theirs.txt", a file the person never had; read-tree would have landed
# it without touching docs/mine.txt. It should land (the doc: it waits only
# for "uncommitted changes to paths the landing changes").
# catches: waiting on any path under an untracked directory.
@test "an untracked file of the person's in a directory a landing adds to is kept, and does not hold the landing" {
	daicho add docs --done-when file:docs/theirs.txt >/dev/null
	claim_work 1 w1 docs/theirs.txt theirs >/dev/null
	mkdir "$REPO/docs" && printf 'mine\n' >"$REPO/docs/mine.txt"
	daicho sweep >/dev/null
	[ "$(cat "$REPO/docs/mine.txt")" = mine ] || fail "the person's untracked file was touched"
	[ "$(state 1)" = landed ] ||
		fail "BUG: the landing waits (state $(state 1)): $(daicho status --json | jq -r '[.needs_you[].summary] | join("; ")')"
	[ "$(cat "$REPO/docs/theirs.txt")" = theirs ]
	run git -C "$REPO" status --porcelain
	assert_output '?? docs/mine.txt'
}

# BUG: src/core/land.c, find_trunk() (~line 309) and move_trunk(): only the
# main work tree is asked whether it has the trunk out. A person's linked
# worktree (git worktree add ../wt main, the main work tree on another
# branch) has the trunk out too; the landing moves refs/heads/main under it
# with update-ref, leaving its index and files at the old trunk, so git
# shows the landed files as staged deletions and the person's next commit
# there reverts the landed work. git itself refuses to move a branch that
# any worktree has out. It should make that worktree follow (read-tree -m -u,
# waiting when something is in the way), or not move the trunk.
# catches: the trunk moved under a linked worktree that has it out.
@test "a person's linked worktree with the trunk out: the person's next commit there does not revert landed work" {
	git -C "$REPO" checkout -qb feature
	person daicho config trunk main
	git -C "$REPO" worktree add -q "$TEST_ROOT/wt" main
	daicho add t --done-when file:t.txt >/dev/null
	claim_work 1 w1 t.txt t >/dev/null
	daicho sweep >/dev/null
	printf 'edit\n' >>"$TEST_ROOT/wt/README"
	git -C "$TEST_ROOT/wt" add README
	git -C "$TEST_ROOT/wt" commit -qm 'a person, in their worktree'
	if [ "$(state 1)" = landed ]; then
		git -C "$REPO" cat-file -e main:t.txt 2>/dev/null ||
			fail "BUG: the person's next commit in the linked worktree reverted #1's landed work (t.txt is gone from main)"
	fi
}

# ---------------------------------------------------------------------------
# 3. No task lands twice; recovery after a killed lander.

# catches: a killed lander's land lock honoured until its expiry (nothing
# lands for the check timeout and more), or its marked task landed again or
# lost; in squash mode, where the trunk commit is not the task's.
@test "kill -9 of a lander in the middle of its land-check: the next pass takes over at once and lands the task exactly once (squash)" {
	person daicho config land squash
	unsandboxed
	person daicho config land-check "test -e $TEST_ROOT/go || { touch $TEST_ROOT/started; while ! test -e $TEST_ROOT/go; do sleep 0.05; done; }"
	daicho add t --done-when file:t.txt >/dev/null
	person daicho land --pause >/dev/null
	c="$(claim_work 1 w1 t.txt t)"
	daicho sweep >/dev/null
	person daicho land --resume >/dev/null
	before="$(trunk)"
	daicho land >"$TEST_ROOT/land.out" 2>&1 &
	pid=$!
	wait_for "$TEST_ROOT/started"
	kill -9 "$pid"
	wait "$pid" || true
	pid=
	touch "$TEST_ROOT/go" # lets the orphaned check end, if it outlived the lander
	[ "$(trunk)" = "$before" ] || fail "the trunk moved before the check passed"
	[ "$(state 1)" = verified ]
	run daicho land --json
	assert_success
	[ "$(jq .busy <<<"$output")" = false ] || fail "the dead lander still holds the lock: $output"
	[ "$(jq .landed <<<"$output")" = 1 ] || fail "not landed: $output"
	[ "$(state 1)" = landed ]
	[ "$(landed_count 1)" = 1 ]
	[ "$(git -C "$REPO" rev-list --count "$before..main")" = 1 ] || fail "the trunk moved more than once"
	git -C "$REPO" log -1 --format=%B main | grep -q "^Daicho-Land: #1 $c [0-9a-f]*$"
	run daicho land
	assert_output "land: 0 landed, 0 sent back"
	assert_clean_checkout
}

# catches: a second lander not excluded (no lock, or a lock taken without
# compare): both merge the same task and the trunk gets it twice.
@test "two landers at once: the second says it is busy and does nothing; the task lands once" {
	unsandboxed
	person daicho config land-check "touch $TEST_ROOT/started; while ! test -e $TEST_ROOT/go; do sleep 0.05; done"
	daicho add t --done-when file:t.txt >/dev/null
	person daicho land --pause >/dev/null
	claim_work 1 w1 t.txt t >/dev/null
	daicho sweep >/dev/null
	person daicho land --resume >/dev/null
	before="$(trunk)"
	daicho land >"$TEST_ROOT/first.out" 2>&1 &
	pid=$!
	wait_for "$TEST_ROOT/started"
	snapshot_ledger
	run daicho land --json
	assert_success
	[ "$(jq .busy <<<"$output")" = true ] || fail "the second lander was not busy: $output"
	[ "$(jq .landed <<<"$output")" = 0 ]
	run daicho sweep
	assert_success
	refute_output --partial landed
	assert_ledger_unchanged
	touch "$TEST_ROOT/go"
	wait "$pid" || fail "the first lander failed: $(cat "$TEST_ROOT/first.out")"
	pid=
	[ "$(cat "$TEST_ROOT/first.out")" = "land: 1 landed, 0 sent back" ]
	[ "$(state 1)" = landed ]
	[ "$(landed_count 1)" = 1 ]
	[ "$(git -C "$REPO" rev-list --first-parent --count "$before..main")" = 1 ]
}

# BUG: src/core/land.c, recover() (~line 1395) with gitm_commits_with_line()
# (src/util/gitmerge.c): a task a killed lander left marked is recorded
# landed when ANY commit in land_base..trunk has a line "Daicho-Land: #ID
# COMMIT", including a worker's own commit, which reaches the trunk as a
# merge parent and whose message the worker wrote. Here #2's worker put
# "Daicho-Land: #1 <#1's commit>" in its message; #2 lands in the batch, the
# lander is killed while checking #1, and the next pass records #1 landed
# (landed_commit = #2's worker commit) though #1's work is on no trunk
# commit, releasing its dependents. Only commits the lander made (the
# first-parent chain, and in rebase/squash the line daicho added) should
# count.
# catches: recovery that trusts any commit message on the trunk.
@test "a forged Daicho-Land line in another task's commit does not make recovery record a task landed that never landed" {
	daicho add one --done-when file:one.txt >/dev/null
	daicho add two --done-when file:two.txt >/dev/null
	daicho add three --done-when file:three.txt >/dev/null
	person daicho land --pause >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho claim 2 --as w2 >/dev/null
	c1="$(work 1 one.txt 1)"
	# #2's worker knows #1's commit and forges the line landing writes.
	c2="$(worker_commit 2 main "echo 2 >two.txt")"
	c2="$(git -C "$REPO" commit-tree "$c2^{tree}" -p main -m two -m "Daicho-Land: #1 $c1")"
	git -C "$REPO" update-ref refs/heads/work/2 "$c2"
	daicho report 2 --as w2 --commit "$c2"
	daicho sweep >/dev/null
	claim_work 3 w3 three.txt 3 >/dev/null
	daicho sweep >/dev/null
	daicho report 1 --as w1 --commit "$c1"
	daicho sweep >/dev/null
	# The batch [2, 3, 1] fails (#3 breaks the land-check) and is bisected:
	# #2 lands, #3 goes back, and the check of #1 alone hangs until go.
	unsandboxed
	person daicho config land-check "! test -e three.txt && { ! test -e one.txt || test -e $TEST_ROOT/go || { touch $TEST_ROOT/started; while ! test -e $TEST_ROOT/go; do sleep 0.05; done; }; }"
	person daicho land --resume >/dev/null
	daicho land >"$TEST_ROOT/land.out" 2>&1 &
	pid=$!
	wait_for "$TEST_ROOT/started"
	kill -9 "$pid"
	wait "$pid" || true
	pid=
	touch "$TEST_ROOT/go"
	[ "$(state 2)" = landed ] || fail "#2 did not land before the kill: $(state 2)"
	! git -C "$REPO" cat-file -e main:one.txt 2>/dev/null || fail "#1 reached the trunk before the kill"
	run daicho land
	assert_success
	if [ "$(state 1)" = landed ]; then
		git -C "$REPO" cat-file -e main:one.txt 2>/dev/null ||
			fail "BUG: #1 is recorded landed (at $(daicho show --json 1 | jq -r .landed_commit)) but its work is not on the trunk"
	fi
	# The pass that recovered lands #1 for real.
	[ "$(state 1)" = landed ] || daicho land >/dev/null
	[ "$(state 1)" = landed ]
	git -C "$REPO" cat-file -e main:one.txt
	[ "$(landed_count 1)" = 1 ]
}

# BUG: src/core/land.c, build_candidate() (~line 860, have_commit() failing
# is an error for the whole batch) and land_pass() (~line 1700): when one
# queued task's verified commit can no longer be had (its branch deleted and
# the object pruned), the batch and the pass stop with an error, every task
# of the batch is marked "landing failed: cannot land <that commit>", and
# the next pass (retry_waiting() clears the marks) hits the same task
# first: the tasks queued behind it never land, and 'daicho land' / 'daicho
# sweep' exit 1 each time. The task that cannot land should be set aside
# (or sent back, its work to be redone) and the rest of the queue land.
# catches: one task's git failure holding the whole queue.
@test "one queued task whose commit is gone does not hold the rest of the queue" {
	daicho add lost --done-when file:a.txt >/dev/null
	daicho add fine --done-when file:b.txt >/dev/null
	person daicho land --pause >/dev/null
	c1="$(claim_work 1 w1 a.txt a)"
	claim_work 2 w2 b.txt b >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ] || fail "#1 is $(state 1)"
	[ "$(state 2)" = verified ] || fail "#2 is $(state 2)"
	# The worker deletes its branch; a person's gc prunes the commit.
	git -C "$REPO" branch -D work/1 >/dev/null
	git -C "$REPO" reflog expire --expire=now --all
	git -C "$REPO" gc -q --prune=now
	! git -C "$REPO" cat-file -e "$c1" 2>/dev/null || fail "the commit is still there"
	person daicho config remote none
	person daicho land --resume >/dev/null
	daicho land >/dev/null 2>&1 || true
	daicho land >/dev/null 2>&1 || true
	! git -C "$REPO" cat-file -e main:a.txt 2>/dev/null || fail "the lost work landed"
	[ "$(state 1)" != landed ] || fail "#1 is recorded landed"
	[ "$(state 2)" = landed ] ||
		fail "BUG: #2 never lands behind #1 (state $(state 2)): $(daicho status --json | jq -r '[.needs_you[].summary] | join("; ")')"
	git -C "$REPO" cat-file -e main:b.txt
}

# catches: landing resolving the task's branch (or a ref named at report)
# when it lands, instead of the commit verification judged: a worker moves
# its branch after the verdict and unverified work lands.
@test "a worker that moves its branch after the verdict: the verified commit lands, not the branch's new tip" {
	daicho add t --done-when file:t.txt >/dev/null
	person daicho land --pause >/dev/null
	daicho claim 1 --as w1 >/dev/null
	verified="$(work 1 t.txt t)"
	daicho report 1 --as w1 --commit work/1
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ]
	work 1 unverified.txt sneaked work/1 >/dev/null
	person daicho land --resume >/dev/null
	daicho land >/dev/null
	[ "$(state 1)" = landed ]
	[ "$(git -C "$REPO" rev-parse main^2)" = "$verified" ] || fail "main's task parent is not the verified commit"
	! git -C "$REPO" cat-file -e main:unverified.txt 2>/dev/null || fail "unverified work landed"
}

# ---------------------------------------------------------------------------
# 4. New work is judged against the trunk as it is now.

# catches: new-work judged against the trunk at the claim only: the tip of
# main, holding a person's commit made after the claim, passes as the
# worker's "new" work (and it is on a branch: main).
@test "a worker that reports the trunk's tip holding a person's commit made after its claim is rejected" {
	daicho add t --done-when file:p.txt >/dev/null
	daicho claim 1 --as faker >/dev/null
	printf 'p\n' >"$REPO/p.txt"
	git -C "$REPO" add p.txt && git -C "$REPO" commit -qm 'a person'
	before="$(trunk)"
	daicho report 1 --as faker --commit main
	daicho sweep >/dev/null
	[ "$(state 1)" = claimed ] || fail "the person's commit passed as the worker's work: #1 is $(state 1)"
	run daicho show 1
	assert_output --partial "is on the trunk as it is now"
	[ "$(trunk)" = "$before" ]
}

# catches: "holds another task's work" checked only when the report adds a
# commit of its own: a bare merge of the trunk and a queued branch passes.
@test "a bare merge of another task's verified branch, with no commit of its own, is rejected" {
	daicho add honest --done-when file:h.txt >/dev/null
	daicho add merger --done-when file:h.txt >/dev/null
	person daicho land --pause >/dev/null
	daicho claim 2 --as f2 >/dev/null
	claim_work 1 w1 h.txt h >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ]
	printf 'p\n' >"$REPO/p.txt"
	git -C "$REPO" add p.txt && git -C "$REPO" commit -qm 'a person' # the merge is no fast-forward
	m="$(git -C "$REPO" commit-tree "$(git -C "$REPO" merge-tree --write-tree main work/1)" -p main -p work/1 -m 'merge #1')"
	git -C "$REPO" update-ref refs/heads/work/2 "$m"
	daicho report 2 --as f2 --commit "$m"
	daicho sweep >/dev/null
	[ "$(state 2)" = claimed ] || fail "the bare merge was accepted: #2 is $(state 2)"
	run daicho show 2
	assert_output --partial "holds the work of #1, which is verified and waits to land"
	person daicho land --resume >/dev/null
	daicho land >/dev/null
	[ "$(state 1)" = landed ]
}

# BUG (README vs code): README, "What verification accepts as evidence":
# "it may not hold another task's work that waits to land, by hash or by
# change (patch id: a cherry-pick or a rebase of it is still that task's)".
# src/core/verify.c, own_changes() (~line 548) only leaves such commits out
# of the count of the report's own changes: a cherry-pick of #1's queued
# change with any genuine commit on top is accepted, and lands carrying #1's
# work under #2's name, while the same with a merge of #1's branch (by hash)
# is rejected. Either the README or own_changes() is wrong.
# catches: another task's change held by patch id accepted beside an own
# commit.
@test "a cherry-pick of another task's queued change, with a commit of its own on top, is rejected like a merge of it" {
	daicho add honest --done-when file:h.txt >/dev/null
	daicho add picker --done-when file:own.txt >/dev/null
	person daicho land --pause >/dev/null
	daicho claim 2 --as f2 >/dev/null
	claim_work 1 w1 h.txt h >/dev/null
	daicho sweep >/dev/null
	printf 'p\n' >"$REPO/p.txt"
	git -C "$REPO" add p.txt && git -C "$REPO" commit -qm 'a person' # another hash for the pick
	work 2 h.txt h main >/dev/null # #1's change, cherry-picked
	c2="$(work 2 own.txt own work/2)"
	daicho report 2 --as f2 --commit "$c2"
	daicho sweep >/dev/null
	[ "$(state 2)" = claimed ] ||
		fail "BUG: a report holding #1's queued change by patch id was accepted (#2 is $(state 2))"
}

# catches: "merged onto the trunk now it must change something" missing:
# a revert of landed work followed by its re-application is two commits of
# the worker's own, not on the trunk, with content unlike the claim's.
@test "a report that only reverts landed work and applies it again is rejected" {
	daicho add honest --done-when file:h.txt >/dev/null
	daicho add faker --done-when file:h.txt >/dev/null
	daicho claim 2 --as f2 >/dev/null
	claim_work 1 w1 h.txt h >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
	landed="$(trunk)"
	r="$(git -C "$REPO" commit-tree "$(git -C "$REPO" rev-parse "$landed^1^{tree}")" -p main -m 'revert #1')"
	a="$(git -C "$REPO" commit-tree "$(git -C "$REPO" rev-parse "$landed^{tree}")" -p "$r" -m 're-apply #1')"
	git -C "$REPO" update-ref refs/heads/work/2 "$a"
	daicho report 2 --as f2 --commit "$a"
	daicho sweep >/dev/null
	[ "$(state 2)" = claimed ] || fail "the revert and re-apply was accepted: #2 is $(state 2)"
	run daicho show 2
	assert_output --partial "merged onto it, it changes nothing"
	[ "$(trunk)" = "$landed" ]
}

# ---------------------------------------------------------------------------
# 5. Sent back: no attempt spent, and land-tries bound it.

# catches: a send-back that spends an attempt (a task with --max-attempts 1
# could not be claimed again), or land_tries not counted across
# resubmissions of the same commit (it would bounce forever).
@test "a worker that keeps resubmitting the same conflicting commit: never lands, spends no attempt, fails after land-tries" {
	printf 'base\n' >"$REPO/c.txt"
	git -C "$REPO" add c.txt && git -C "$REPO" commit -qm c
	person daicho config land-tries 2
	person daicho add --no-baseline first --done-when file:c.txt >/dev/null
	person daicho add --no-baseline second --done-when file:c.txt --max-attempts 1 >/dev/null
	claim_work 1 w1 c.txt one >/dev/null
	c2="$(claim_work 2 w2 c.txt two)"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
	[ "$(state 2)" = open ]
	tip="$(trunk)"
	[ "$(daicho show --json 2 | jq .attempts)" = 0 ] || fail "the send-back spent an attempt"
	run daicho prompt 2
	assert_output --partial "Sent back from landing (1 time)"
	# The same commit again.
	[ "$(daicho claim 2 --as w2)" = 2 ] || fail "a task with one attempt could not be claimed again"
	daicho report 2 --as w2 --commit "$c2"
	daicho sweep >/dev/null
	[ "$(state 2)" = failed ]
	[ "$(daicho show --json 2 | jq .land_tries)" = 2 ]
	[ "$(daicho status --json | jq -r '[.needs_you[] | select(.kind == "failed") | .reason][0]')" = 'landing tries exhausted' ]
	[ "$(trunk)" = "$tip" ] || fail "the trunk moved"
	[ "$(git -C "$REPO" show main:c.txt)" = one ]
	refused 4 daicho claim 2 --as w2
	assert_clean_checkout
}

# ---------------------------------------------------------------------------
# 6. Dependents start from landed work.

# catches: dependents released at verification, or at a send-back, or a
# claim_base read from the predecessor's branch rather than the trunk; in
# rebase mode, where the predecessor's reported commit never reaches the
# trunk (its replay does).
@test "a dependent stays not ready while its predecessor waits or is sent back, and starts from the trunk that holds its replayed work (rebase)" {
	printf 'base\n' >"$REPO/a.txt"
	git -C "$REPO" add a.txt && git -C "$REPO" commit -qm a
	person daicho config land rebase
	person daicho add --no-baseline schema --done-when file:a.txt >/dev/null
	person daicho add --no-baseline code --after 1 --done-when file:b.txt >/dev/null
	person daicho land --pause >/dev/null
	c1="$(claim_work 1 w1 a.txt first)"
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ]
	refused 3 daicho claim --next --as w2
	refused 4 daicho claim 2 --as w2
	# A person's commit to a.txt: #1 conflicts and goes back.
	printf 'person\n' >"$REPO/a.txt"
	git -C "$REPO" commit -qam 'a person'
	person daicho land --resume >/dev/null
	run daicho land
	assert_output "land: 0 landed, 1 sent back (1 conflict, 0 failing the merged tree)"
	[ "$(state 1)" = open ]
	refused 4 daicho claim 2 --as w2
	[ -z "$(daicho ls --ready --json | jq -r '.[] | select(.id == 2) | .id')" ] || fail "#2 is ready"
	# Redone on the trunk as it is, it lands; then #2 starts from it.
	claim_work 1 w1 a.txt redone >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
	[ "$(daicho claim 2 --as w2)" = 2 ]
	base="$(daicho show --json 2 | jq -r .claim_base)"
	[ "$base" = "$(trunk)" ] || fail "claim_base $base is not the trunk"
	[ "$(git -C "$REPO" show "$base:a.txt")" = redone ] || fail "claim_base lacks #1's landed work"
	! git -C "$REPO" merge-base --is-ancestor "$c1" "$base" || fail "the sent-back commit is under the trunk"
}

# ---------------------------------------------------------------------------
# 7. Only a person steers landing.

# catches: the person-only check done for one spelling of an agent identity
# (--as) but not another ($DAICHO_AGENT, an agent client's session), or for
# 'land' but not the other landing settings, or after something changed.
@test "agents cannot pause, resume, or change landing settings, however they say who they are" {
	daicho add t --done-when file:t.txt >/dev/null
	claim_work 1 w1 t.txt t >/dev/null
	snapshot_ledger
	for who in '--as agent1' 'env DAICHO_AGENT=agent1' 'env CLAUDE_CODE_SESSION_ID=s1' 'env CODEX_THREAD_ID=t1'; do
		# shellcheck disable=SC2086
		set -- $who
		if [ "$1" = --as ]; then pre=(); post=(--as agent1); else pre=("$@"); post=(); fi
		refused 6 "${pre[@]}" daicho land --pause "${post[@]}"
		refused 6 "${pre[@]}" daicho config land off "${post[@]}"
		refused 6 "${pre[@]}" daicho config land-check true "${post[@]}"
		refused 6 "${pre[@]}" daicho config land-batch 1 "${post[@]}"
		refused 6 "${pre[@]}" daicho config land-tries 99 "${post[@]}"
		refused 6 "${pre[@]}" daicho config trunk feature "${post[@]}"
		refused 6 "${pre[@]}" daicho config --unset land "${post[@]}"
	done
	assert_ledger_unchanged
	# Not paused by any of them: the sweep lands.
	person daicho land --pause >/dev/null
	refused 6 env DAICHO_AGENT=agent1 daicho land --resume
	refused 6 daicho land --resume --as agent1
	run daicho sweep
	refute_output --partial landed
	[ "$(state 1)" = verified ] || fail "landing went on while paused"
	person daicho land --resume >/dev/null
	run daicho land
	assert_output "land: 1 landed, 0 sent back"
}

# catches: the person-at-a-terminal check of approve/gate rm skipped for
# requests made by landing, or satisfied by a terminal alone (an agent that
# runs 'script' has one) while its identity is in the environment.
@test "agents cannot remove a gate on landing nor approve a landing, even on a terminal" {
	daicho gate add 'land:db/**' --approval >/dev/null
	daicho add migrate --done-when file:db/001.sql >/dev/null
	claim_work 1 w1 db/001.sql 'create table t' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ]
	[ "$(daicho approvals --json | jq -r '.[0].state')" = pending ]
	snapshot_ledger
	refused 6 daicho gate rm 1 --as w1
	refused 6 env DAICHO_AGENT=w1 daicho gate rm 1
	refused 6 daicho approve 1 --as w1
	refused 6 env DAICHO_AGENT=w1 daicho approve 1
	on_pty env DAICHO_AGENT=w1 daicho approve 1
	[ "$status" -eq 6 ] || fail "an agent on a terminal approved: $status $output"
	on_pty env CLAUDE_CODE_SESSION_ID=s1 daicho gate rm 1
	[ "$status" -eq 6 ] || fail "an agent on a terminal removed the gate: $status $output"
	assert_ledger_unchanged
	[ "$(daicho gate ls --json | jq length)" = 1 ] || fail "the gate is gone"
	[ "$(daicho approvals --json | jq -r '.[0].state')" = pending ]
	daicho land >/dev/null
	[ "$(state 1)" = verified ] || fail "the gated work landed without a person"
	! git -C "$REPO" cat-file -e main:db/001.sql 2>/dev/null || fail "the gated work is on the trunk"
	# A person approves it.
	on_pty daicho approve 1
	[ "$status" -eq 0 ] || fail "approve: $output"
	daicho land >/dev/null
	[ "$(state 1)" = landed ]
}

# BUG: src/core/land.c, move_trunk() (~line 1158) via hold_lock(): a person's
# 'daicho land --pause' while a landing is in flight makes the lock renewal
# before the trunk moves fail (the lock is not taken while paused), reported
# as "another lander took over the landing lock: this one stops": the sweep
# exits 4 and NEEDS YOU shows "landing failed: another lander took over",
# though there is no other lander and the pause is what the person asked.
# The trunk correctly does not move. It should stop quietly as paused
# (exit 0, the task queued, no failure recorded).
# catches: a pause during a landing taken for a lost lock.
@test "a person pausing while a landing is in flight: nothing moves, and the pass stops as paused, not failed" {
	unsandboxed
	# (The checkout is the judge's: daicho finds the ledger as told.)
	person daicho config land-check "test -e $TEST_ROOT/p || { touch $TEST_ROOT/p; DAICHO_LEDGER=\"${DAICHO_LEDGER:-$REPO/.git/daicho/ledger.db}\" script -qec 'daicho land --pause' /dev/null </dev/null >/dev/null; }"
	person daicho add --no-baseline t --done-when file:t.txt >/dev/null
	claim_work 1 w1 t.txt t >/dev/null
	before="$(trunk)"
	run --separate-stderr daicho sweep
	[ "$(trunk)" = "$before" ] || fail "the trunk moved after the pause"
	[ "$(state 1)" = verified ] || fail "#1 is $(state 1): $(daicho show 1)"
	[ "$status" -eq 0 ] || fail "BUG: the sweep failed (exit $status): $stderr"
	[[ "$(daicho status)" != *"another lander"* ]] || fail "BUG: NEEDS YOU blames another lander"
	person daicho land --resume >/dev/null
	run daicho land
	assert_output "land: 1 landed, 0 sent back"
}

# ---------------------------------------------------------------------------
# 8. Bad input.

# catches: a bad value stored, or half applied, or reported with the wrong
# status, several lines, or on stdout.
@test "landing's commands, options and settings refuse bad input: one line, the right status, nothing changed" {
	person daicho config land-tries 5
	daicho gate add 'land:db/**' --approval >/dev/null
	snapshot_ledger
	refused 2 daicho land --stale-after 0
	refused 2 daicho land --stale-after -1s
	refused 2 daicho land --stale-after soon
	refused 2 person daicho land --dry-run --resume
	refused 2 person daicho land --pause extra
	refused 2 daicho land --bogus
	refused 2 person daicho config land MERGE
	refused 2 person daicho config land ''
	refused 2 person daicho config land-batch 1.5
	refused 2 person daicho config land-batch 1025
	refused 2 person daicho config land-batch 99999999999999999999999
	refused 2 person daicho config land-tries 0
	refused 2 person daicho config land-tries ''
	refused 2 person daicho config land-tries 3 4
	refused 2 person daicho config land-check ''
	refused 2 person daicho config --unset land extra
	refused 2 person daicho config land-nope 1
	refused 2 person daicho config --unset land-nope
	refused 2 person daicho config trunk 'bad..name'
	refused 2 daicho gate add 'land:../x' --approval
	refused 2 daicho gate add 'land:db/**' --approval --require true
	refused 4 person daicho land --resume
	refused 6 daicho land --pause --as agent1
	on_pty daicho approve 99
	[ "$status" -eq 3 ] || fail "approve 99: $status $output"
	on_pty daicho gate rm 99
	[ "$status" -eq 3 ] || fail "gate rm 99: $status $output"
	assert_ledger_unchanged
	[ "$(daicho config land-tries)" = 5 ]
	[ "$(daicho gate ls --json | jq length)" = 1 ]
}

# ---------------------------------------------------------------------------
# 9. rebase and squash.

# catches: in rebase mode, the tree judged before the last replayed commit
# (or the trunk's) rather than the end of the line that lands, so a
# semantic conflict reaches the trunk.
@test "rebase: a semantic conflict is sent back; every trunk tip a landing leaves passes the land-check; the culprit's commits never reach it" {
	printf 'greet() { echo hi; }\n' >"$REPO/lib.sh"
	printf '. ./lib.sh\ngreet\n' >"$REPO/main.sh"
	git -C "$REPO" add lib.sh main.sh && git -C "$REPO" commit -qm code
	check='sh main.sh && { ! test -e extra.sh || sh extra.sh; }'
	person daicho config land rebase
	person daicho config land-check "$check"
	person daicho add --no-baseline rename --done-when 'cmd:sh main.sh' >/dev/null
	person daicho add --no-baseline caller --done-when 'cmd:sh extra.sh' >/dev/null
	person daicho add --no-baseline other --done-when file:o.txt >/dev/null
	person daicho land --pause >/dev/null
	daicho claim 1 --as w1 >/dev/null
	work 1 lib.sh 'salute() { echo hi; }' >/dev/null
	c1="$(work 1 main.sh "$(printf '. ./lib.sh\nsalute')" work/1)"
	daicho report 1 --as w1 --commit "$c1"
	claim_work 2 w2 extra.sh '. ./lib.sh; greet' >/dev/null
	claim_work 3 w3 o.txt o >/dev/null
	daicho sweep >/dev/null
	person daicho land --resume >/dev/null
	run daicho land --json
	assert_success
	[ "$(jq .landed <<<"$output")" = 2 ] || fail "$output"
	[ "$(state 1)" = landed ] || fail "#1 is $(state 1)"
	[ "$(state 3)" = landed ] || fail "#3 is $(state 3)"
	[ "$(state 2)" = open ]
	[ "$(last_event 2 | jq -r .kind)" = land-failed ]
	[ -z "$(git -C "$REPO" rev-list --merges main)" ] || fail "rebase made a merge commit"
	[ -z "$(git -C "$REPO" log --format=%H main -- extra.sh)" ] || fail "the culprit's work is in the trunk's history"
	for t in 1 3; do
		green_at "$(daicho show --json $t | jq -r .landed_commit)" "$check" ||
			fail "#$t's landed trunk commit fails the land-check"
	done
	green_at main "$check" || fail "the trunk is red"
	assert_clean_checkout
}

# catches: in rebase mode, a lost compare-and-swap not replayed onto the
# new trunk (the candidate was made in the lander's checkout), or the
# person's commit dropped from a linear history.
@test "rebase: a person's commit on the checked-out trunk during the land-check is kept, the line replayed onto it, the task landed once" {
	person daicho config land rebase
	unsandboxed
	person daicho config land-check "test -e $TEST_ROOT/moved || { touch $TEST_ROOT/moved; echo p >$REPO/p.txt; git -C $REPO add p.txt; git -C $REPO commit -q -m meanwhile; }"
	daicho add t --done-when file:t.txt >/dev/null
	c="$(claim_work 1 w1 t.txt t)"
	start="$(trunk)"
	run daicho sweep --json
	assert_success
	[ "$(state 1)" = landed ]
	[ "$(jq .landing.trunk_moves <<<"$output")" = 1 ]
	meanwhile="$(git -C "$REPO" log --format=%H --grep=meanwhile -n1 main)"
	[ -n "$meanwhile" ] || fail "the person's commit is gone"
	[ "$(git -C "$REPO" rev-parse main^)" = "$meanwhile" ] || fail "not replayed onto the person's commit"
	[ "$(git -C "$REPO" rev-list --count "$start..main")" = 2 ] || fail "not exactly the person's commit and the task's"
	[ -z "$(git -C "$REPO" rev-list --merges "$start..main")" ]
	[ "$(git -C "$REPO" log --format=%B "$start..main" | grep -c "^Daicho-Land: #1 $c ")" = 1 ]
	[ "$(landed_count 1)" = 1 ]
	assert_clean_checkout
	[ "$(cat "$REPO/p.txt")" = p ] || fail "the checkout lost the person's file"
	[ "$(cat "$REPO/t.txt")" = t ] || fail "the checkout lacks the landed file"
}

# catches: in squash mode, a conflict with the trunk squashed anyway (the
# task's tree taken whole, as a one-parent commit can), clobbering the
# trunk's version of the file.
@test "squash: a commit that conflicts with the trunk is sent back, the trunk's version kept, no attempt spent" {
	printf 'base\n' >"$REPO/c.txt"
	git -C "$REPO" add c.txt && git -C "$REPO" commit -qm c
	person daicho config land squash
	person daicho add --no-baseline first --done-when file:c.txt >/dev/null
	person daicho add --no-baseline second --done-when file:c.txt >/dev/null
	start="$(trunk)"
	claim_work 1 w1 c.txt one >/dev/null
	claim_work 2 w2 c.txt two >/dev/null
	run daicho sweep
	assert_output --partial "1 landed, 1 sent back (1 conflict, 0 failing the merged tree)"
	[ "$(state 1)" = landed ]
	[ "$(state 2)" = open ]
	[ "$(daicho show --json 2 | jq .attempts)" = 0 ]
	[ "$(git -C "$REPO" show main:c.txt)" = one ]
	[ "$(git -C "$REPO" rev-list --count "$start..main")" = 1 ] || fail "squash made more than one commit"
	[ "$(git -C "$REPO" rev-list --parents -n1 main | wc -w)" = 2 ] || fail "the squash commit is a merge"
	assert_clean_checkout
}
