#!/usr/bin/env bats
# The dishonest worker: an agent under pressure that wants its task accepted
# without doing the work tries every way it can think of to get a false
# report verified (issue 13, "What must be refused"). Each attempt must be
# rejected with a one-line reason that names the cause, the task going back
# as any rejection does; each honest variant next to it must be verified.
#
# Written from the specification, not from the implementation. Test names
# start with the item of the issue they exercise (1-8), or "own" for attacks
# the issue does not list; "honest" marks the variants that must pass.

load verify_helpers
load stray_helpers

setup_file() {
	own_strays
}

# The judge's logic does not depend on the back end, and its record on
# PostgreSQL (verdicts, baselines, events) is verify.bats' there: this file
# runs on SQLite, which keeps the PostgreSQL pass within the suite's time.
setup() {
	if backend_is_postgresql; then
		skip "the judge does not depend on the back end (verify.bats covers its record on PostgreSQL)"
	fi
	verify_setup
}

LEFTOVER_MARK='sleep 313.0' # every process section 6 starts has it in its command line

teardown() {
	# Section 6: should daicho leave a check's process running, end it (found
	# by the unique marker, ended by its pid) so it outlives no test.
	local pid
	for pid in $(pgrep -f "$LEFTOVER_MARK" || true); do
		kill -KILL "$pid" 2>/dev/null || true
	done
}

# --- helpers ---------------------------------------------------------------------

# trunk_commit PATH TEXT: someone else's earlier work, committed on the trunk
# (main, checked out in $REPO) before the claim. Prints the commit's hash.
trunk_commit() {
	mkdir -p "$(dirname "$REPO/$1")"
	printf '%s\n' "$2" >"$REPO/$1"
	git -C "$REPO" add -- "$1"
	git -C "$REPO" commit -q -m "trunk: $1"
	git -C "$REPO" rev-parse HEAD
}

# worker_tree ID [START]: the worker's own checkout, a new branch work/ID at
# START (default: the trunk) in $TEST_ROOT/wk-ID; cd there. It shares the
# ledger through the git common dir.
worker_tree() {
	git -C "$REPO" worktree add -q -b "work/$1" "$TEST_ROOT/wk-$1" "${2:-main}" || fail "worktree for #$1"
	cd "$TEST_ROOT/wk-$1" || fail "cd wk-$1"
}

# commit_all MSG: commit everything in the current checkout (past the
# pre-commit hook, as a worker may: these tests are about the judge, and
# their tasks reserve what they --touches).
commit_all() {
	git add -A . && git commit --no-verify -q -m "$1" || fail "commit_all: $1"
}

# claim_as ID AGENT
claim_as() {
	[ "$(daicho claim "$1" --as "$2")" = "$1" ] || fail "claim $1 --as $2 failed"
}

# report_as ID AGENT REV
report_as() {
	daicho report "$1" --as "$2" --commit "$3" || fail "report $1 --as $2 --commit $3 failed"
}

# assert_rejected ID OWNER ATTEMPTS REGEX: the last verdict failed; its summary
# is one line matching REGEX (bash ERE); the task went back to OWNER, claimed,
# now on attempt ATTEMPTS; the last event is that rejection.
assert_rejected() {
	local id="$1" owner="$2" attempts="$3" re="$4" v
	v="$(daicho show --json "$id" | jq -c '.last_verdict')"
	[ "$(jq -r .passed <<<"$v")" = false ] || fail "#$id: the last verdict passed: $v"
	local summary
	summary="$(jq -r .summary <<<"$v")"
	[[ "$summary" != *$'\n'* ]] || fail "#$id: the summary is not one line: '$summary'"
	[[ "$summary" =~ $re ]] || fail "#$id: the summary '$summary' does not match /$re/ (verdict: $v)"
	assert_task "$id" claimed "$owner" "$attempts"
	[ "$(last_event "$id" | jq -r '"\(.kind) \(.detail.to)"')" = "rejected owner" ] ||
		fail "#$id: last event $(last_event "$id")"
}

# assert_verified ID OWNER ATTEMPTS
assert_verified() {
	assert_task "$1" verified "$2" "$3"
	[ "$(tf "$1" .last_verdict.passed)" = true ] || fail "#$1: $(tf "$1" .last_verdict)"
}

# submit_rejected MSG REGEX: w1 commits all in its work tree (cwd) as MSG,
# reports it for #1, and one sweep rejects it (assert_rejected ... REGEX).
submit_rejected() {
	commit_all "$1"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 "$2"
}

# submit_verified MSG: the same, and the sweep verifies it.
submit_verified() {
	commit_all "$1"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

# --- 1. untracked or ignored files never count ------------------------------------

@test "1: report without --commit of a file:, cmd: or commit task is refused (exit 2, says --commit); stays claimed, ledger unchanged" {
	export DAICHO_NOW_MS=$T0
	daicho add f --done-when file:deliv.md >/dev/null
	daicho add c --done-when 'cmd:test -s deliv.md' >/dev/null
	daicho add k --done-when commit >/dev/null
	daicho add mixed --done-when saved --done-when file:deliv.md >/dev/null
	for i in 1 2 3 4; do claim_as $i w1; done
	printf 'r' | daicho save 4 --as w1
	echo "the work, never committed" >deliv.md
	snapshot_ledger
	for i in 1 2 3 4; do
		refused 2 daicho report $i --as w1
		[[ "$stderr" == *--commit* ]] || fail "#$i: the refusal does not say to pass --commit: $stderr"
		assert_task $i claimed w1 1
	done
	assert_ledger_unchanged
}

@test "1: a deliverable left untracked in the main checkout (and the worker's), absent from the reported commit, is rejected: missing" {
	daicho add t --done-when file:deliv.md --done-when 'cmd:test -s deliv.md' >/dev/null
	claim_as 1 w1
	worker_tree 1
	echo "the work" >deliv.md # never committed
	echo notes >notes.md
	git add notes.md
	git commit -q -m "not the deliverable"
	report_as 1 w1 HEAD
	echo "also here" >"$REPO/deliv.md"
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'deliv.md is missing'
}

# ignored_deliverable: the trunk ignores deliv.md; task 1 (file:deliv.md) is
# claimed by w1, who writes deliv.md in its work tree (cwd) and in the main
# checkout.
ignored_deliverable() {
	trunk_commit .gitignore deliv.md >/dev/null
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1
	echo "the work" >deliv.md
	echo "the work" >"$REPO/deliv.md"
}

@test "1: a gitignored deliverable, present in both checkouts but not in the commit, is rejected: missing" {
	ignored_deliverable
	echo notes >notes.md
	commit_all "work (git add -A skips the ignored file)"
	[ -z "$(git ls-tree HEAD deliv.md)" ] || fail "the ignored file got committed"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'deliv.md is missing'
}

@test "1 honest: a gitignored deliverable force-added (git add -f) is committed, so it counts: verified" {
	ignored_deliverable
	git add -f deliv.md
	git commit -q -m "the deliverable, force-added"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

@test "1 honest: a task whose only check is saved is verified on a report without --commit" {
	daicho add t --done-when saved >/dev/null
	claim_as 1 w1
	printf 'the answer' | daicho save 1 --as w1
	ok daicho report 1 --as w1
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
	[ "$(tf 1 .last_verdict.commit)" = null ]
}

@test "own: a committed symlink to an uncommitted file in the main checkout does not let a cmd: check see it: rejected" {
	daicho add t --done-when "cmd:grep -q '^answer=42$' deliv.md" >/dev/null
	claim_as 1 w1
	worker_tree 1
	echo answer=42 >"$REPO/deliv.md" # the real content, never committed
	ln -s "$REPO/deliv.md" deliv.md # what is committed: a pointer to it
	submit_rejected "the deliverable" 'deliv\.md'
}

@test "own: a report without --commit sent from outside the repository (--ledger PATH) does not get an untracked file verified" {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	echo "the work, never committed" >"$REPO/deliv.md"
	cd "$TEST_ROOT" # not in any repository
	run --separate-stderr daicho --ledger "$LEDGER" report 1 --as w1
	cd "$REPO"
	if [ "$status" -eq 0 ]; then
		# Got in without a commit: the sweep must reject it.
		sweep_says 0 1 0 0 0
		assert_rejected 1 w1 2 'commit'
	else
		[ "$status" -eq 2 ] || fail "exit $status: $stderr"
		assert_task 1 claimed w1 1
	fi
}

# --- 2. the reported commit must be new work -----------------------------------------

@test "2: reporting the repository's initial commit is rejected: already on the trunk when #1 was claimed" {
	daicho add t --done-when file:README --done-when commit >/dev/null
	claim_as 1 w1
	report_as 1 w1 "$(git rev-list --max-parents=0 HEAD)"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'already on the trunk.* when #1 was claimed'
}

@test "2: a worker that reports the initial commit and vanishes is rejected, the task back to open for another worker" {
	export DAICHO_NOW_MS=$T0
	daicho add t --done-when file:README >/dev/null
	claim_as 1 w1
	report_as 1 w1 "$(git rev-list --max-parents=0 HEAD)"
	DAICHO_NOW_MS=$((T0 + 2000)) SWEEP_OPTS="--stale-after 1s" sweep_says 0 1 0 0 0 1
	assert_task 1 open - 1
	[ "$(last_event 1 | jq -r '"\(.kind) \(.detail.to)"')" = "rejected open" ] || fail "$(last_event 1)"
	[[ "$(tf 1 .last_verdict.summary)" =~ already\ on\ the\ trunk.*\ when\ \#1\ was\ claimed ]] || fail "$(tf 1 .last_verdict.summary)"
	export DAICHO_NOW_MS=$((T0 + 3000))
	ok daicho claim 1 --as w2
}

@test "2: reporting another worker's older trunk commit that already holds the file is rejected: already on the trunk" {
	old="$(trunk_commit deliv.md "someone else's work")"
	daicho add t --done-when file:deliv.md --done-when commit >/dev/null
	claim_as 1 w1
	report_as 1 w1 "$old"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'already on the trunk.* when #1 was claimed'
}

# w2_does_1 [--claim-2-first]: tasks 1 and 2, both done when deliv.md
# exists; w2 claims #1, commits deliv.md on work/1 ($C1), reports it and a
# sweep verifies it. With --claim-2-first, w1 claims #2 before all that.
w2_does_1() {
	daicho add first --done-when file:deliv.md >/dev/null
	daicho add second --done-when file:deliv.md >/dev/null
	[ "${1:-}" != --claim-2-first ] || claim_as 2 w1
	claim_as 1 w2
	worker_tree 1
	echo "w2's work" >deliv.md
	commit_all "w2 does #1"
	C1="$(git rev-parse HEAD)"
	report_as 1 w2 "$C1"
	cd "$REPO"
	sweep_says 1 0 0 0 0
}

@test "2: #1's verified commit, merged to the trunk before #2 was claimed, is rejected for #2" {
	w2_does_1
	git merge -q --ff-only work/1
	claim_as 2 w1
	report_as 2 w1 "$C1"
	sweep_says 0 1 0 0 0
	assert_rejected 2 w1 2 'already on the trunk.* when #2 was claimed|already accepted for #1'
}

@test "2: a commit accepted for #1 (not merged) is rejected for #2: already accepted for #1" {
	w2_does_1
	claim_as 2 w1
	report_as 2 w1 "$C1"
	sweep_says 0 1 0 0 0
	assert_rejected 2 w1 2 'already accepted for #1'
}

@test "own: one commit reported for two tasks at once, swept in parallel (-j 2): exactly one verified, the other rejected as already accepted" {
	for round in 1 2 3; do
		a=$((2 * round - 1)) b=$((2 * round))
		daicho add "a$round" --done-when "file:d$round.md" >/dev/null
		daicho add "b$round" --done-when "file:d$round.md" >/dev/null
		claim_as $a w1
		claim_as $b w2
		worker_tree $a
		echo "work $round" >"d$round.md"
		commit_all "one piece of work"
		c="$(git rev-parse HEAD)"
		cd "$REPO"
		report_as $a w1 "$c"
		report_as $b w2 "$c"
		SWEEP_OPTS="-j 2" sweep_says 1 1 0 0 0
		if [ "$(tf $a .state)" = verified ]; then
			assert_rejected $b w2 2 "already accepted for #$a"
		else
			assert_verified $b w2 1
			assert_rejected $a w1 2 "already accepted for #$b"
		fi
	done
}

@test "own: stealing another worker's reported, not yet swept commit: the first reporter is verified, the thief rejected naming its task" {
	daicho add thief-task --done-when file:deliv.md >/dev/null   # 1: swept first if the sweep goes by id
	daicho add honest-task --done-when file:deliv.md >/dev/null  # 2
	claim_as 1 thief
	claim_as 2 honest
	worker_tree 2
	echo "honest work" >deliv.md
	commit_all "the honest worker's work"
	c="$(git rev-parse HEAD)"
	cd "$REPO"
	report_as 2 honest "$c"
	report_as 1 thief "$c" # seen in 'daicho show 2'
	SWEEP_OPTS="-j 1" sweep_says 1 1 0 0 0 # one at a time: the race of -j N is another test
	assert_verified 2 honest 1
	assert_rejected 1 thief 2 'accepted for #2'
}

@test "own: an empty commit on top of a commit accepted for #1 holds no new work for #2: rejected naming #1" {
	w2_does_1
	claim_as 2 w1
	worker_tree 2 work/1
	git commit -q --allow-empty -m "#2 done (really)"
	report_as 2 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 2 w1 2 '#1'
}

@test "own: the trunk's merge of #1's accepted work, made after #2 was claimed, is rejected for #2: it is on the trunk now" {
	w2_does_1 --claim-2-first # the trunk had no deliv.md when #2 was claimed
	git merge -q --no-ff -m "merge #1" work/1
	report_as 2 w1 main # the merge commit: new since the claim, but #1's work
	sweep_says 0 1 0 0 0
	assert_rejected 2 w1 2 'is on the trunk as it is now'
}

@test "own: #1's accepted work merged into #2's branch with a commit of #2's own on top counts for #2 only once #1 is on the trunk" {
	w2_does_1 --claim-2-first
	worker_tree 2 work/1 # #2 starts from #1's accepted branch, not the trunk
	echo 'more' >more.md
	commit_all "#2's own bit"
	c="$(git rev-parse HEAD)"
	cd "$REPO"
	# #1 is verified, not on the trunk: its work cannot pass for #2's.
	report_as 2 w1 "$c"
	sweep_says 0 1 0 0 0
	assert_rejected 2 w1 2 '#1'
}

@test "own: a tag pointing at the trunk is rejected: already on the trunk when #1 was claimed" {
	git tag v1
	daicho add t --done-when file:README --done-when commit >/dev/null
	claim_as 1 w1
	report_as 1 w1 v1
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'already on the trunk.* when #1 was claimed'
}

@test "own: merging the trunk into an old work branch, with no change of its own, is rejected (nothing new against the trunk)" {
	git branch work/1 # the worker's branch, from before the trunk moved on
	trunk_commit deliv.md "someone else's work" >/dev/null
	daicho add t --done-when file:deliv.md --done-when commit >/dev/null
	claim_as 1 w1
	git worktree add -q "$TEST_ROOT/wk-1" work/1
	cd "$TEST_ROOT/wk-1"
	git merge -q --no-ff -m "merge the trunk" main
	[ -z "$(git diff main HEAD)" ] || fail "the merge has a change of its own"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'trunk'
}

@test "own: an empty commit on top of the trunk holds no new work: rejected (trunk)" {
	trunk_commit deliv.md "someone else's work" >/dev/null
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1
	git commit -q --allow-empty -m "done"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'trunk'
}

@test "own: a copy of the trunk's commit (same tree and parent, new hash) holds no new work: rejected (trunk)" {
	old="$(trunk_commit deliv.md "someone else's work")"
	daicho add t --done-when file:deliv.md --done-when commit >/dev/null
	claim_as 1 w1
	copy="$(git commit-tree "$old^{tree}" -p "$old^" -m "my work, honestly")"
	git branch work/1 "$copy"
	[ "$copy" != "$old" ]
	report_as 1 w1 work/1
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'trunk'
}

@test "own: a commit that exists only in another clone, reported through --ledger, is refused (exit 3) or rejected saying it is not in this repository" {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	git clone -q "$REPO" "$TEST_ROOT/clone"
	cd "$TEST_ROOT/clone"
	git config user.email w1@example.com
	git config user.name w1
	git checkout -q -b work/1
	echo "work in my clone" >deliv.md
	commit_all "work, never pushed"
	c="$(git rev-parse HEAD)"
	run --separate-stderr daicho --ledger "$LEDGER" report 1 --as w1 --commit HEAD
	cd "$REPO"
	if [ "$status" -eq 0 ]; then
		sweep_says 0 1 0 0 0
		assert_rejected 1 w1 2 "${c:0:12}"
		# ... saying why: the commit is not in this repository (not a git error).
		assert_rejected 1 w1 2 '(no such|no|unknown|missing) commit|not in (this|the) repository|does not exist'
	else
		[ "$status" -eq 3 ] || fail "exit $status: $stderr"
		assert_task 1 claimed w1 1
	fi
	git cat-file -e "$c" 2>/dev/null && fail "the clone's commit leaked into the repository" || true
}

@test "2: with 'config trunk develop', a commit already on develop at the claim is rejected although main is checked out" {
	git checkout -q -b develop
	old="$(trunk_commit deliv.md "work already on develop")"
	git checkout -q main
	person daicho config trunk develop >/dev/null
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	report_as 1 w1 "$old"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'already on the trunk.* when #1 was claimed'
}

@test "2 honest: with 'config trunk develop', new work on a branch off develop is verified" {
	git branch develop
	person daicho config trunk develop >/dev/null
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1 develop
	echo "the work" >deliv.md
	submit_verified "the work"
}

@test "own: detaching the main checkout before the claim does not make an old trunk commit new work: rejected (trunk)" {
	old="$(trunk_commit deliv.md "someone else's work")"
	git checkout -q --detach HEAD~1 # the main work tree now has no branch checked out
	daicho add t --done-when file:deliv.md --done-when commit >/dev/null
	claim_as 1 w1
	report_as 1 w1 "$old"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'trunk'
}

@test "2 honest: new work on a work branch is verified; a commit on the trunk itself is not, whoever made it" {
	daicho add a --done-when file:a.md --done-when commit >/dev/null
	daicho add b --done-when file:b.md --done-when commit >/dev/null
	claim_as 1 w1
	claim_as 2 w2
	worker_tree 1
	echo a >a.md
	commit_all "#1"
	report_as 1 w1 HEAD
	cd "$REPO"
	echo b >b.md
	commit_all "#2, straight on the trunk"
	# On the trunk, a worker's commit cannot be told from a person's (or
	# from work others landed): only work on a branch is a task's own.
	report_as 2 w2 HEAD
	sweep_says 1 1 0 0 0
	assert_verified 1 w1 1
	assert_rejected 2 w2 2 'is on the trunk as it is now'
}

# --- 3. work must be on a branch ------------------------------------------------------

# branchless_commit: task 1 (file:deliv.md) claimed by w1, who commits
# deliv.md with git commit-tree ($C) on no branch; the checkout is left as
# it was.
branchless_commit() {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	echo "the work" >deliv.md
	C="$(commit_work 1)"
	git update-ref -d refs/heads/work/1 # commit_work put it on a branch: take it off
	rm deliv.md
}

@test "3: a commit made with git commit-tree, on no branch, is rejected: on no branch" {
	branchless_commit
	report_as 1 w1 "$C"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'on no branch'
}

@test "3: a commit made on a detached HEAD is rejected: on no branch" {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	git worktree add -q --detach "$TEST_ROOT/wk" main
	cd "$TEST_ROOT/wk"
	echo "the work" >deliv.md
	submit_rejected "detached work" 'on no branch'
}

@test "own: a stash commit (refs/stash is no branch) is rejected: on no branch" {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	echo "the work" >deliv.md
	git add deliv.md
	git stash -q
	git cat-file -e 'stash@{0}:deliv.md' || fail "the stash does not hold the file"
	report_as 1 w1 'stash@{0}'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'on no branch'
}

@test "own: a commit kept only under a custom ref (refs/keep/x) is rejected: on no branch" {
	branchless_commit
	git update-ref refs/keep/x "$C"
	report_as 1 w1 "$C"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'on no branch'
}

@test "3 honest: a commit-tree commit that only a tag points at is verified" {
	branchless_commit
	git tag done-1 "$C"
	report_as 1 w1 done-1
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

# --- 4. file: means a real file ---------------------------------------------------------

# file_attack CHECK-PATH SETUP...: task 1 (file:CHECK-PATH) claimed by w1,
# who runs SETUP (a shell snippet) in its work tree, commits all and reports.
file_attack() {
	daicho add t --done-when "file:$1" >/dev/null
	claim_as 1 w1
	worker_tree 1
	sh -c "$2" || fail "setup: $2"
	commit_all "the deliverable (sort of)"
	report_as 1 w1 HEAD
	cd "$REPO"
}

@test "4: a committed symlink deliv.md -> README does not satisfy file:deliv.md: rejected, symbolic link" {
	file_attack deliv.md 'ln -s README deliv.md'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'symbolic link'
}

@test "4: a directory at deliv.md (holding a file) is rejected: directory" {
	file_attack deliv.md 'mkdir deliv.md && echo x >deliv.md/inside'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'directory'
}

@test "4: a symlink to a directory at deliv.md is rejected: symbolic link" {
	file_attack deliv.md 'mkdir docs && echo x >docs/inside && ln -s docs deliv.md'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'symbolic link'
}

@test "4: a path reached through a symlinked directory (out -> docs, file:out/x.md) is rejected: symbolic link, naming out" {
	file_attack out/x.md 'mkdir docs && echo x >docs/x.md && ln -s docs out'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'symbolic link'
	[[ "$(tf 1 .last_verdict.summary)" == *out* ]] || fail "$(tf 1 .last_verdict.summary)"
}

@test "own: a committed symlink deliv.md -> /etc/passwd is rejected (symbolic link or outside the repository)" {
	file_attack deliv.md 'ln -s /etc/passwd deliv.md'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'symbolic link|outside the repository'
}

@test "own: file:./deliv.md is held to the same rules: a symlink is rejected, then a real file verified" {
	file_attack ./deliv.md 'ln -s README deliv.md'
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'symbolic link'
	cd "$TEST_ROOT/wk-1"
	rm deliv.md
	echo "the real work" >deliv.md
	commit_all "a real file"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 2
}

@test "own: file:out/ (trailing slash) with out a directory is refused at add (exit 2) or rejected at sweep: directory" {
	run --separate-stderr daicho add t --done-when file:out/
	if [ "$status" -ne 0 ]; then
		[ "$status" -eq 2 ] || fail "add: exit $status: $stderr"
		return 0
	fi
	claim_as 1 w1
	worker_tree 1
	mkdir out
	echo x >out/inside
	submit_rejected "a directory" 'directory'
}

@test "own: a gitlink (submodule entry) at deliv.md does not satisfy file:deliv.md: rejected" {
	daicho add t --done-when file:deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1
	git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),deliv.md"
	git commit -q -m "a gitlink"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'deliv.md'
}

# --- 5. a worker cannot change what judges it --------------------------------------------

@test "5: config changes by an agent (--as, DAICHO_AGENT, even --as root, an agent client's session) are refused, exit 6, nothing changed" {
	daicho add first >/dev/null
	snapshot_ledger
	before="$(daicho config --json)"
	refused 6 daicho --as w1 config protect 'nothing/**'
	refused 6 daicho config protect 'nothing/**' --as root
	DAICHO_AGENT=w1 refused 6 daicho config protect 'nothing/**'
	refused 6 daicho --as w1 config --unset protect
	refused 6 daicho --as w1 config trunk nowhere
	refused 6 daicho --as w1 config max-hold 100d
	DAICHO_AGENT=w1 refused 6 daicho config --unset max-hold
	# an agent client's session bound to an agent, with no DAICHO_AGENT
	CLAUDE_CODE_SESSION_ID=sess-1 daicho agent start w9 --kind claude >/dev/null 2>&1
	snapshot_ledger
	CLAUDE_CODE_SESSION_ID=sess-1 refused 6 daicho config protect 'nothing/**'
	assert_ledger_unchanged
	[ "$(daicho config --json)" = "$before" ] || fail "settings changed: $(daicho config --json)"
}

# judged_task [add options...]: the trunk has test.sh, which passes only when
# deliv.md says answer=42, and checks/*.sh, sourced in turn by run.sh; task 1
# is done when 'sh test.sh' and 'sh run.sh' pass (its scope: deliv.md),
# claimed by w1 in its own work tree (cwd). The wrong answer is answer=41.
judged_task() {
	cat >"$REPO/test.sh" <<-'EOF'
		grep -q '^answer=42$' deliv.md
	EOF
	mkdir -p "$REPO/checks"
	cat >"$REPO/run.sh" <<-'EOF'
		for f in checks/*.sh; do . "./$f" || exit 1; done
	EOF
	cat >"$REPO/checks/answer.sh" <<-'EOF'
		grep -q '^answer=42$' deliv.md || exit 1
	EOF
	git -C "$REPO" add test.sh run.sh checks
	git -C "$REPO" commit -q -m "the judges"
	daicho add t --done-when 'cmd:sh test.sh' --done-when 'cmd:sh run.sh' --touches deliv.md "$@" >/dev/null
	claim_as 1 w1
	worker_tree 1
}

@test "5: rewriting the protected test.sh to 'exit 0' is rejected naming test.sh" {
	judged_task --protect test.sh
	echo answer=41 >deliv.md
	echo 'exit 0' >test.sh
	echo 'exit 0' >checks/answer.sh # not protected in this task: only test.sh is
	submit_rejected "make the tests pass" 'test\.sh'
}

@test "5: deleting a protected check is rejected naming it" {
	judged_task --protect test.sh --protect run.sh --protect 'checks/**'
	echo answer=42 >deliv.md # test.sh passes honestly; the check run.sh sources is gone
	git rm -q checks/answer.sh
	submit_rejected "remove a flaky check" 'checks/answer\.sh'
}

@test "5: renaming a protected check away (git mv) is rejected naming it" {
	judged_task --protect test.sh --protect run.sh --protect 'checks/**'
	echo answer=42 >deliv.md
	git mv checks/answer.sh checks/answer.sh.off
	submit_rejected "park a check" 'checks/answer\.sh'
}

@test "5: adding a file under a protected glob (checks/00-pass.sh that ends the run early) is rejected naming it" {
	judged_task --protect test.sh --protect run.sh --protect 'checks/**'
	echo answer=42 >deliv.md
	echo 'exit 0' >checks/00-pass.sh
	submit_rejected "a helper check" 'checks/00-pass\.sh'
}

@test "5: a protected file changed in an earlier commit of the branch is rejected, though the reported commit does not touch it" {
	judged_task --protect test.sh
	echo 'exit 0' >test.sh
	commit_all "tidy the test"
	echo answer=42 >deliv.md
	commit_all "the work"
	[ -z "$(git show --name-only --format= HEAD -- test.sh)" ]
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'test\.sh'
}

# fork_before_strict: the trunk's test.sh was lax (deliv.md not empty), then
# a human made it strict (answer=42); task 1 (cmd:sh test.sh, --protect
# test.sh) is claimed by w1 with the strict one on the trunk, and w1 works
# in a branch forked from before it (cwd).
fork_before_strict() {
	local lax
	echo 'test -s deliv.md' >test.sh
	git add test.sh
	git commit -q -m "a lax test"
	lax="$(git rev-parse HEAD)"
	echo "grep -q '^answer=42$' deliv.md" >test.sh
	git commit -q -am "a strict test"
	daicho add t --done-when 'cmd:sh test.sh' --protect test.sh --touches deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1 "$lax"
}

@test "own: work forked from before the protected test.sh was made strict runs the old, lax test: rejected naming test.sh" {
	fork_before_strict
	echo answer=41 >deliv.md
	commit_all "the work"
	[ -n "$(git diff main HEAD -- test.sh)" ] || fail "the commit's test.sh is the claim's"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'test\.sh'
}

@test "5 honest: work forked before the protected test.sh was made strict, with the trunk merged in, passes the strict test: verified" {
	fork_before_strict
	echo answer=42 >deliv.md
	commit_all "the work"
	git merge -q --no-edit main
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

@test "5 honest: a protected file changed, then reverted in a later commit (net diff empty), is verified" {
	judged_task --protect test.sh
	echo 'exit 0' >test.sh
	commit_all "try something"
	git revert --no-edit HEAD >/dev/null
	echo answer=42 >deliv.md
	commit_all "the work"
	[ -z "$(git diff main HEAD -- test.sh)" ]
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

@test "5: a mode change of a protected file counts as a change: rejected naming it" {
	judged_task --protect test.sh
	echo answer=42 >deliv.md
	chmod +x test.sh
	commit_all "make it executable"
	[ -n "$(git diff main HEAD -- test.sh)" ] || fail "git did not record the mode change"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'test\.sh'
}

@test "own: replacing the protected test.sh by a symlink to a passing script is rejected naming test.sh" {
	judged_task --protect test.sh
	echo answer=41 >deliv.md
	echo 'exit 0' >ok.sh
	rm test.sh
	ln -s ok.sh test.sh
	sed -i 's/.*/exit 0/' checks/answer.sh # run.sh's check is not protected in this task
	submit_rejected "simplify" 'test\.sh'
}

@test "own: the worker's change of the protected test.sh committed straight onto the trunk after the claim is still rejected" {
	judged_task --protect test.sh --protect run.sh --protect 'checks/**'
	cd "$REPO" # the worker commits on the trunk itself
	echo 'exit 0' >test.sh
	commit_all "fix the test"
	echo answer=41 >deliv.md
	echo 'exit 0' >run.sh
	commit_all "the work"
	report_as 1 w1 HEAD
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'is on the trunk as it is now'
}

@test "5: protect given in add --batch is enforced" {
	echo "grep -q '^answer=42$' deliv.md" >test.sh
	git add test.sh
	git commit -q -m judge
	ok daicho add --batch - <<-'EOF'
		{"title":"t","done_when":["cmd:sh test.sh"],"protect":["test.sh"]}
	EOF
	claim_as 1 w1
	worker_tree 1
	echo answer=41 >deliv.md
	echo 'exit 0' >test.sh
	submit_rejected "pass" 'test\.sh'
}

@test "5: the ledger's protect list binds every task but its --touches; the task's own --protect always applies" {
	mkdir docs
	echo guide >docs/guide.md
	echo judge >docs/judge.md
	git add docs
	git commit -q -m docs
	person daicho config protect 'docs/**' >/dev/null
	# A person's tasks (at a terminal): their touches are what exempts.
	person daicho add touches-docs --touches 'docs/**' --done-when commit >/dev/null
	daicho add no-touches --done-when commit >/dev/null
	person daicho add touches-but-protects --touches 'docs/**' --protect docs/judge.md --done-when commit >/dev/null
	claim_as 1 w1
	worker_tree 1
	echo "better guide" >docs/guide.md
	DAICHO_AGENT=w1 commit_all "#1 edits the guide it declares" # the reservation hook knows who commits
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1

	claim_as 2 w2
	worker_tree 2
	echo "sneaky edit" >docs/guide.md
	commit_all "#2 edits the guide it does not declare"
	report_as 2 w2 HEAD
	claim_as 3 w3
	worker_tree 3
	echo "judge me kindly" >docs/judge.md
	DAICHO_AGENT=w3 commit_all "#3 edits the judge"
	report_as 3 w3 HEAD
	cd "$REPO"
	sweep_says 0 2 0 0 0
	assert_rejected 2 w2 2 'docs/guide\.md'
	assert_rejected 3 w3 2 'docs/judge\.md'
}

@test "5 honest: checks that pass with every protected path left alone are verified" {
	judged_task --protect test.sh --protect run.sh --protect 'checks/**'
	echo answer=42 >deliv.md
	commit_all "the right answer"
	report_as 1 w1 HEAD
	cd "$REPO"
	person daicho config protect '*.sh' 'checks/**' >/dev/null
	sweep_says 1 0 0 0 0
	assert_verified 1 w1 1
}

@test "own: a smudge filter (.gitattributes + git config) that rewrites the protected test.sh at checkout does not get the check passed" {
	judged_task --protect test.sh --touches 'checks/**'
	git config filter.pass.smudge "sed 's/^grep.*/exit 0/'"
	git config filter.pass.clean cat
	echo 'test.sh filter=pass' >.gitattributes
	echo 'exit 0' >checks/answer.sh # not protected in this task; the attack is on test.sh
	echo answer=41 >deliv.md
	commit_all "attributes"
	[ -z "$(git diff main HEAD -- test.sh)" ] || fail "the committed test.sh changed"
	report_as 1 w1 HEAD
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_rejected 1 w1 2 'test\.sh|gitattributes|filter'
}

@test "own: a post-checkout hook that rewrites test.sh in the verification worktree does not get the check passed" {
	judged_task --protect test.sh --touches 'checks/**'
	hooks="$(git rev-parse --git-common-dir)/hooks"
	printf '#!/bin/sh\n[ -f test.sh ] && echo "exit 0" >test.sh\nexit 0\n' >"$hooks/post-checkout"
	chmod +x "$hooks/post-checkout"
	echo 'exit 0' >checks/answer.sh
	echo answer=41 >deliv.md
	submit_rejected "the work" 'test\.sh'
}

# --- the worker runs the verification itself ---------------------------------------------

# poisoned_report: task 1 is done when deliv.md says answer=42; w1 commits
# answer=41 on its branch and reports it, and has a directory $EVIL whose
# grep always succeeds.
poisoned_report() {
	daicho add t --done-when "cmd:grep -q '^answer=42$' deliv.md" --touches deliv.md >/dev/null
	claim_as 1 w1
	worker_tree 1
	echo answer=41 >deliv.md
	commit_all "the wrong answer"
	report_as 1 w1 HEAD
	cd "$REPO"
	EVIL="$TEST_ROOT/evil"
	mkdir -p "$EVIL"
	printf '#!/bin/sh\nexit 0\n' >"$EVIL/grep"
	chmod +x "$EVIL/grep"
}

# after_poison: whatever the worker's own run did, #1 is not verified; an
# independent sweep (the human's, clean environment) then rejects it.
after_poison() {
	[ "$(tf 1 .state)" != verified ] || fail "the worker verified its own task: $(tf 1 .last_verdict.summary)"
	if [ "$(tf 1 .state)" = reported ]; then
		sweep_says 0 1 0 0 0
		assert_rejected 1 w1 2 'exit 1'
	else
		assert_rejected 1 w1 2 'exit 1'
	fi
}

@test "own: the worker's own 'verify 1 --apply', run with a PATH whose grep always passes, does not verify its task" {
	poisoned_report
	PATH="$EVIL:$PATH" run daicho --as w1 verify 1 --apply
	after_poison
}

@test "own: the worker's own 'daicho sweep' (DAICHO_AGENT set), run with a PATH whose grep always passes, does not verify its task" {
	poisoned_report
	DAICHO_AGENT=w1 PATH="$EVIL:$PATH" run daicho sweep
	after_poison
}

# --- 6. checks leave nothing behind -------------------------------------------------------

# leftover_sweep CMD: task 1 is done when cmd:CMD passes (a 5 s check timeout,
# so a hang costs little); w1 reports an honest commit and the sweep runs.
# Each CMD waits 0.2 s after starting its stray, so that the stray has left
# the check's process group or session before the check ends: without the
# wait, whether it escapes is a race, and the test would pass by luck.
# Afterwards no process with the marker may be left, and the sweep must not
# have waited for the leftover.
leftover_sweep() {
	daicho add t --check-timeout 5s --done-when "cmd:$1" >/dev/null
	claim_report 1 w1
	SECONDS=0
	run --separate-stderr daicho sweep
	[ "$status" -eq 0 ] || fail "sweep: exit $status: $stderr"
	[[ "$output" == "sweep: 1 verified, 0 rejected"* || "$output" == "sweep: 0 verified, 1 rejected"* ]] ||
		fail "sweep: $output"
	[ "$SECONDS" -lt 8 ] || fail "the sweep took ${SECONDS}s: it waited on the leftover"
	assert_nothing_left
}

assert_nothing_left() {
	local _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "$LEFTOVER_MARK" >/dev/null || return 0
		sleep 0.1
	done
	fail "left running: $(pgrep -af "$LEFTOVER_MARK")"
}

@test "6: cmd:setsid sleep 313 & (then 0.2 s) leaves nothing running after the sweep" {
	leftover_sweep "setsid ${LEFTOVER_MARK}1 & sleep 0.2"
}

@test "6: a double fork with its output closed leaves nothing running after the sweep" {
	leftover_sweep "(${LEFTOVER_MARK}2 </dev/null >/dev/null 2>&1 &); sleep 0.2"
}

@test "6: nohup sleep 313 & leaves nothing running after the sweep" {
	leftover_sweep "nohup ${LEFTOVER_MARK}3 >/dev/null 2>&1 & sleep 0.2"
}

@test "own: a setsid -f child that ignores SIGTERM, SIGHUP and SIGINT leaves nothing running after the sweep" {
	leftover_sweep "setsid -f sh -c 'trap \"\" TERM HUP INT; ${LEFTOVER_MARK}4' </dev/null >/dev/null 2>&1; sleep 0.2"
}

@test "own: a check that kills the sweep running it (kill -9 \$PPID) never gets its task verified" {
	daicho add t --check-timeout 5s --done-when 'cmd:kill -9 $PPID; exit 0' >/dev/null
	claim_report 1 w1
	run daicho sweep
	run daicho sweep
	[ "$(tf 1 .state)" != verified ] || fail "verified: $(tf 1 .last_verdict)"
}

@test "own: daicho verify ID (not the sweep) leaves nothing running either" {
	daicho add t --check-timeout 5s --done-when "cmd:(setsid ${LEFTOVER_MARK}5 </dev/null >/dev/null 2>&1 &); sleep 0.2" >/dev/null
	claim_report 1 w1
	SECONDS=0
	run --separate-stderr daicho verify 1
	[ "$SECONDS" -lt 8 ] || fail "verify took ${SECONDS}s"
	assert_nothing_left
}

# --- 7. a done-when changed after the claim is visible ---------------------------------------

@test "7: a verdict records the checks_version it ran, the task's own" {
	daicho add t --done-when file:deliv.md >/dev/null
	v="$(tf 1 .checks_version)"
	[[ "$v" =~ ^[0-9]+$ ]] || fail "checks_version: $v"
	claim_as 1 w1
	echo x >deliv.md
	c="$(commit_work 1)"
	report_as 1 w1 "$c"
	sweep_says 1 0 0 0 0
	[ "$(tf 1 .last_verdict.checks_version)" = "$v" ]
}

@test "7: editing --done-when of a claimed task raises checks_version, logs an event, and the next verdict names its version" {
	daicho edit --help >/dev/null 2>&1 || skip "no 'daicho edit' on main yet"
	daicho add t --done-when file:a.md >/dev/null
	v1="$(tf 1 .checks_version)"
	claim_as 1 w1
	kinds_before="$(event_kinds 1)"
	ok person daicho edit 1 --done-when file:b.md
	v2="$(tf 1 .checks_version)"
	[ "$v2" -gt "$v1" ] || fail "checks_version $v1 -> $v2"
	[ "$(event_kinds 1)" != "$kinds_before" ] || fail "no event for the edit: $(event_kinds 1)"
	[[ "$(last_event 1)" == *b.md* ]] || fail "the event does not say what changed: $(last_event 1)"
	worker_tree 1
	echo a >a.md # what the claim asked for, not what is asked now
	submit_rejected "a.md" 'b\.md'
	[ "$(tf 1 .last_verdict.checks_version)" = "$v2" ]
}

# --- 8. orphaned claims expire ---------------------------------------------------------------

# The clock is DAICHO_NOW_MS. hold_scenario CLAIM-OPTIONS -- CMD...: w claims
# #1 at T0 with --lease 2s and CLAIM-OPTIONS, then runs CMD once a second for
# 8 s (a step is 1010 ms: a real loop of 'sleep 1' and a command never takes
# exactly a second, and a lease is renewed only past half its length); then
# one sweep, its summary line in $output.
hold_scenario() {
	local opts=() s
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	export DAICHO_NOW_MS=$T0
	[ "$(daicho --as w claim 1 --lease 2s "${opts[@]}")" = 1 ] || fail "claim"
	for s in 1 2 3 4 5 6 7 8; do
		export DAICHO_NOW_MS=$((T0 + s * 1010))
		"$@" >/dev/null || fail "second $s: $* failed"
	done
	export DAICHO_NOW_MS=$((T0 + 8 * 1010 + 100))
	run --separate-stderr daicho sweep
	[ "$status" -eq 0 ] || fail "sweep: $stderr"
}

# assert_held_too_long: the sweep expired #1's claim for its max hold, said so
# in its line and in the task's event; another agent can claim it now.
assert_held_too_long() {
	[[ "$output" == *"1 lease expired (1 past the max hold)"* ]] || fail "sweep: $output"
	assert_task 1 open - 1
	local ev
	ev="$(daicho events --json | jq -c '[.[] | select(.task == 1 and .kind != "add" and .kind != "claim")] | last')"
	[ "$(jq -r .kind <<<"$ev")" = lease-expired ] || fail "event: $ev"
	[[ "$(jq -r .detail.reason <<<"$ev")" == *"max hold"* ]] || fail "the expiry does not say max hold: $ev"
	run daicho log 1
	assert_line --regexp 'lease-expired .*max hold'
	ok daicho claim 1 --as w2
	assert_output 1
}

@test "8: a claim whose holder only runs 'ls --mine' expires after the max hold (default three leases); another agent claims it; the events say max hold" {
	daicho add t >/dev/null
	hold_scenario -- daicho --as w ls --mine
	assert_held_too_long
}

@test "8: claim --max-hold 20s keeps the claim through 8 s of 'ls --mine'" {
	daicho add t >/dev/null
	hold_scenario --max-hold 20s -- daicho --as w ls --mine
	assert_task 1 claimed w 1
	refused 4 daicho claim 1 --as w2
}

@test "8: 'daicho config max-hold 20s' changes the default: the claim survives 8 s of 'ls --mine'" {
	daicho add t >/dev/null
	person daicho config max-hold 20s >/dev/null
	hold_scenario -- daicho --as w ls --mine
	assert_task 1 claimed w 1
	refused 4 daicho claim 1 --as w2
}

# name_task_round: w names task 1 by a different command each second.
NAME_ROUND=0
name_task_round() {
	NAME_ROUND=$((NAME_ROUND + 1))
	case $((NAME_ROUND % 4)) in
	1) daicho --as w claim 1 ;;
	2) daicho --as w prompt 1 ;;
	3) printf 'partial' | daicho --as w save 1 ;;
	0) daicho --as w show 1 ;;
	esac
}

@test "8: a worker that keeps naming its task (claim ID, prompt ID, save ID, show ID) keeps it" {
	daicho add t >/dev/null
	hold_scenario -- name_task_round
	assert_task 1 claimed w 1
	refused 4 daicho claim 1 --as w2
}

@test "own: naming another task (show 2, prompt 2, claim 2) does not renew the claim on #1" {
	daicho add t >/dev/null
	daicho add other >/dev/null
	names_other() { daicho --as w claim 2 && daicho --as w show 2 && daicho --as w prompt 2; }
	hold_scenario -- names_other
	assert_held_too_long
}

@test "own: another agent or the human naming the task does not renew the holder's claim" {
	daicho add t >/dev/null
	others_name_it() { daicho --as w ls --mine && daicho --as w2 show 1 && daicho show 1 && daicho prompt 1; }
	hold_scenario -- others_name_it
	assert_held_too_long
}
