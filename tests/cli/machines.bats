#!/usr/bin/env bats
# Verification on several machines, simulated on one: a bare remote, the
# ledger's clone ($REPO, where the sweep runs) and a worker's clone
# ($CLONE_B, elsewhere), which commits on its own branch, pushes and
# reports; the sweep fetches the commit it lacks.

load verify_helpers

setup() {
	verify_setup
	REMOTE="$TEST_ROOT/remote.git"
	git clone -q --bare "$REPO" "$REMOTE"
	git -C "$REPO" remote add origin "$REMOTE"
	git -C "$REPO" fetch -q origin
	CLONE_B="$TEST_ROOT/b"
	git clone -q "$REMOTE" "$CLONE_B"
	git -C "$CLONE_B" config user.email worker@example.com
	git -C "$CLONE_B" config user.name Worker
	daicho add "write out.txt" --done-when file:out.txt --done-when 'cmd:grep -q done out.txt' --touches out.txt >/dev/null
}

# work_in_b [PUSH]: w1 claims #1 and, in clone B, commits out.txt on the
# branch work/1 (pushed unless PUSH is "nopush"); prints the commit.
work_in_b() {
	[ "$(daicho claim 1 --as w1)" = 1 ] || fail "claim failed"
	(cd "$CLONE_B" && git checkout -q -b work/1 && echo done >out.txt &&
		git add out.txt && git commit -q -m "work on #1") || fail "commit in B failed"
	if [ "${1:-push}" = push ]; then
		git -C "$CLONE_B" push -q origin work/1 || fail "push failed"
	fi
	git -C "$CLONE_B" rev-parse HEAD
}

# fetch_evidence: the output of the fetch runs of #1's verdicts.
fetch_evidence() {
	sql "SELECT $(sql_text r.output) FROM check_runs r JOIN verdicts v ON v.id = r.verdict
		WHERE v.task = 1 AND r.spec = 'fetch'"
}

# report_from_b COMMIT: w1 reports #1 from clone B, through the shared ledger.
report_from_b() {
	(cd "$CLONE_B" && daicho --ledger "$LEDGER" report 1 --as w1 --commit "$1") ||
		fail "report from B failed"
}

@test "sweep: a commit pushed from another clone is fetched and verified, and the evidence says so" {
	local commit
	commit="$(work_in_b)"
	report_from_b "$commit"
	! git -C "$REPO" cat-file -e "$commit^{commit}" 2>/dev/null || fail "A has the commit already"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
	run sql "SELECT r.spec || ' ' || r.passed || ' ' || $(sql_text r.output) FROM check_runs r
		JOIN verdicts v ON v.id = r.verdict WHERE v.task = 1 AND r.spec = 'fetch'"
	assert_output "fetch 1 fetched ${commit:0:12} from origin, with its branches (it was not in the repository at $REPO)"
	run sql "SELECT summary FROM verdicts WHERE task = 1"
	assert_output --regexp "^2 checks passed \\(and daicho's [0-9]: fetch, [a-z, -]+\\) \\(the commit fetched from origin\\)$"
	run last_event 1
	assert_output --partial '"kind":"verified"'
	assert_output --partial '"fetched":"origin"'
	run daicho log 1
	assert_output --partial "(fetched from origin)"
	git -C "$REPO" rev-parse --verify -q refs/remotes/origin/work/1 >/dev/null
	assert_no_worktrees
}

@test "verify: --remote none neither fetches nor judges quietly: it says fetching is off" {
	local commit
	commit="$(work_in_b)"
	report_from_b "$commit"
	snapshot_ledger
	run --separate-stderr daicho verify 1 --remote none
	[ "$status" -eq 5 ] || fail "exit $status: $stderr"
	assert_output --partial "FAIL fetch"
	assert_output --partial "fetching is off ('daicho config remote' is none)"
	assert_ledger_unchanged
	! git -C "$REPO" cat-file -e "$commit^{commit}" 2>/dev/null || fail "fetched anyway"
}

@test "sweep: with the setting remote none the commit is not fetched, and the rejection says so" {
	local commit
	commit="$(work_in_b)"
	report_from_b "$commit"
	ok person daicho config remote none
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	run sql "SELECT summary FROM verdicts WHERE task = 1"
	assert_output --partial "fetching is off ('daicho config remote' is none)"
	! git -C "$REPO" cat-file -e "$commit^{commit}" 2>/dev/null || fail "fetched anyway"
}

@test "report: with the setting remote none a commit made elsewhere is refused, nothing changed" {
	local commit
	commit="$(work_in_b)"
	ok person daicho config remote none
	snapshot_ledger
	cd "$CLONE_B"
	if backend_is_postgresql; then
		# A PostgreSQL ledger has no one repository: each clone's sweep
		# verifies in its own, so the commit found in B, here, is
		# accepted (a sweep in $REPO rejects it: the test above).
		ok daicho --ledger "$LEDGER" report 1 --as w1 --commit "$commit"
		assert_task 1 reported w1 1
		return
	fi
	refused 3 daicho --ledger "$LEDGER" report 1 --as w1 --commit "$commit"
	[[ "$stderr" == *"the sweep cannot fetch it ('daicho config remote' is none)"* ]] || fail "$stderr"
	assert_ledger_unchanged
}

@test "sweep: an unreachable remote is a clear error; the task stays reported, not rejected" {
	local commit
	commit="$(work_in_b)"
	report_from_b "$commit"
	git -C "$REPO" remote set-url origin "$TEST_ROOT/gone.git"
	sweep_says 0 0 0 0 0
	assert_task 1 reported w1 1
	run fetch_evidence
	assert_output --partial "cannot fetch ${commit:0:12} from origin into the repository at $REPO: tried 'git fetch origin $commit' ("
	assert_output --partial "does not appear to be a git repository"
	assert_output --partial "the task stays reported for the next sweep"
	run event_kinds 1
	assert_output "add claim report verify-deferred"
	run daicho status
	assert_output --partial "#1 could not be verified (git failed at fetch: cannot fetch"
	# verify --apply tries now: nothing applied, exit 1, one error line.
	run --separate-stderr daicho verify 1 --apply
	[ "$status" -eq 1 ] || fail "exit $status"
	assert_output --partial "[not applied: nothing could be judged; still as it was]"
	[ "$stderr" = "daicho: could not verify #1: the commit ${commit:0:12} could not be fetched (see the fetch check above; nothing was judged)" ] || fail "$stderr"
	assert_task 1 reported w1 1
	# The remote is back: the next pass fetches and verifies.
	git -C "$REPO" remote set-url origin "$REMOTE"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
}

@test "sweep: a commit that is on no remote is not verified (pushed nowhere)" {
	local commit
	commit="$(work_in_b nopush)"
	report_from_b "$commit"
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	run fetch_evidence
	assert_output --partial "${commit:0:12} is not in the repository at $REPO, nor on origin: asked for it ("
	assert_output --partial "and fetched every branch of origin, without it (push it to origin, on a branch, then report it)"
	run sql "SELECT count(*) FROM verdicts WHERE passed <> 0"
	assert_output 0
}

@test "sweep: a commit text that would be an option never reaches git" {
	local commit
	commit="$(work_in_b)"
	report_from_b "$commit"
	sql "UPDATE tasks SET report_commit = '--upload-pack=touch $TEST_ROOT/pwned' WHERE id = 1"
	sweep_says 0 1 0 0 0
	[ ! -e "$TEST_ROOT/pwned" ] || fail "git ran the report's text"
	run fetch_evidence
	assert_output --partial "refused: the reported commit is not a full hash"
}

@test "report: a commit text that would be an option is refused before git sees it" {
	[ "$(daicho claim 1 --as w1)" = 1 ]
	snapshot_ledger
	cd "$CLONE_B"
	refused 3 daicho --ledger "$LEDGER" report 1 --as w1 --commit "--upload-pack=touch $TEST_ROOT/pwned"
	[ ! -e "$TEST_ROOT/pwned" ] || fail "git ran the report's text"
	assert_ledger_unchanged
}

@test "sweep, verify, config: a bad remote name is refused with exit 2, nothing changed" {
	snapshot_ledger
	refused 2 daicho sweep --remote --upload-pack=x
	refused 2 daicho sweep --remote=-x
	[[ "$stderr" == *"bad remote name '-x' for --remote"* ]] || fail "$stderr"
	refused 2 daicho verify 1 --remote 'a b'
	refused 2 person daicho config remote 'up:stream'
	[[ "$stderr" == *"bad remote name 'up:stream' for remote"* ]] || fail "$stderr"
	refused 2 person daicho config remote a b
	assert_ledger_unchanged
	ok person daicho config remote upstream
	run daicho config remote
	assert_output upstream
}

# --- liveness across hosts ---------------------------------------------------

# dead_pid: a process id that was just used and is gone.
dead_pid() {
	sleep 0 &
	local pid=$!
	wait "$pid"
	echo "$pid"
}

@test "run: a holder's dead pid counts only on its own host; elsewhere only its lease ends the claim" {
	[ "$(daicho claim 1 --as w1)" = 1 ]
	sql "UPDATE agents SET pid = $(dead_pid), host = 'another-machine' WHERE name = 'w1'"
	# A run reaps the agents whose process is gone: not this one, whose
	# process lives on another machine, where this pid means nothing.
	ok daicho run --label nothing-here -- true
	refute_output --partial "recovered"
	sweep_says 0 0 0 0 0
	assert_task 1 claimed w1 1
	run sql "SELECT count(*) FROM events WHERE kind = 'lease-expired'
		OR $(json_field reason) = 'its process is gone'"
	assert_output 0
	run sql "SELECT state FROM agents WHERE name = 'w1'"
	assert_output active
	# Its lease still decides: once it runs out, the sweep takes it back.
	sql "UPDATE tasks SET lease_expires_ms = 1 WHERE id = 1"
	sweep_says 0 0 0 1 0
	assert_task 1 open - 1
	# The same dead pid recorded on this machine ends the claim at once.
	[ "$(daicho claim 1 --as w2)" = 1 ]
	sql "UPDATE agents SET pid = $(dead_pid), host = '$(uname -n)' WHERE name = 'w2'"
	ok daicho run --label nothing-here -- true
	assert_output --partial "1 recovered from a dead runner"
	sweep_says 0 0 0 1 0
	assert_task 1 open - 2
	run sql "SELECT a.name FROM events e JOIN agents a ON a.id = CAST($(json_field agent e.detail) AS BIGINT)
		WHERE $(json_field reason e.detail) = 'its process is gone'"
	assert_output w2
}

@test "a fetch from a remote runs none of the repository's own git settings: its core.sshCommand, its hooks" {
	local commit trap="$TEST_ROOT/ran"
	commit="$(work_in_b)"
	report_from_b "$commit"
	# What anything that writes .git/config can set: an ssh command, and a
	# hook that runs as refs move.
	printf '#!/bin/sh\ntouch "%s.ssh"\nexit 1\n' "$trap" >"$TEST_ROOT/evil-ssh"
	printf '#!/bin/sh\ntouch "%s.hook"\n' "$trap" >"$TEST_ROOT/evil-hook"
	chmod +x "$TEST_ROOT/evil-ssh" "$TEST_ROOT/evil-hook"
	git -C "$REPO" config core.sshCommand "$TEST_ROOT/evil-ssh"
	git -C "$REPO" config core.hooksPath "$TEST_ROOT/hooks"
	mkdir -p "$TEST_ROOT/hooks"
	cp "$TEST_ROOT/evil-hook" "$TEST_ROOT/hooks/reference-transaction"
	# Control: plain git obeys both.
	git -C "$REPO" remote add probe "ssh://git.invalid/x.git"
	git -C "$REPO" fetch -q probe 2>/dev/null || true
	git -C "$REPO" update-ref refs/heads/probe HEAD
	[ -e "$trap.ssh" ] && [ -e "$trap.hook" ] || fail "control: plain git ran neither"
	rm -f "$trap.ssh" "$trap.hook"
	# The sweep fetches the reported commit from origin (a path) and the
	# probe remote is never asked; neither trap runs.
	sweep_says 1 0 0 0 0
	[ ! -e "$trap.hook" ] || fail "a hook of the repository ran during the sweep's fetch"
	git -C "$REPO" remote set-url origin "ssh://git.invalid/x.git"
	daicho add again --done-when file:again.txt >/dev/null
	[ "$(daicho claim 2 --as w1)" = 2 ] || fail "claim 2"
	(cd "$CLONE_B" && git checkout -q -b work/2 && echo again >again.txt &&
		git add again.txt && git commit -q -m again) || fail "commit in B"
	(cd "$CLONE_B" && daicho --ledger "$LEDGER" report 2 --as w1 \
		--commit "$(git -C "$CLONE_B" rev-parse HEAD)") || fail "report 2"
	daicho sweep >/dev/null || true
	[ ! -e "$trap.ssh" ] || fail "the repository's core.sshCommand ran during the sweep's fetch"
	[ ! -e "$trap.hook" ] || fail "a hook of the repository ran during the sweep's fetch"
}
