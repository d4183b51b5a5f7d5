#!/usr/bin/env bats
# The definition of done (--done-when file:, cmd:, saved, commit), where the
# checks run, verdicts and their evidence (show), and `daicho verify`.

load verify_helpers
load fake_git
load stray_helpers

# A verdict on a commit: its own checks, and daicho's two before them.
OWN_TWO="1 check passed (and daicho's 2: on-branch, new-work)"

TIMEOUT_MARK='sleep 31.4159' # a command line no other process has
# What the checks that must leave nothing behind start (stray_helpers.bash).
STRAY_PATTERNS=('^sleep 313$' '^sleep 314$' '^sleep 315$' '^sleep 316$' '^sleep 317$' '^sleep 319$')

# The teardown ends strays by their command lines, which every test of this
# file shares: a test running beside another (bats -j) would end that
# test's checks (a timed-out check's output lost, a check "Killed").
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	own_strays
}

teardown() {
	# A check must leave nothing behind; should daicho fail to, end the
	# strays (found by their unique command lines, ended by pid) so that
	# they outlive no test.
	kill_strays "$TIMEOUT_MARK" "${STRAY_PATTERNS[@]}"
}

# --- file:PATH ---------------------------------------------------------------

@test "file:PATH passes when the file exists and is non-empty: verified, claim released, evidence kept" {
	daicho add t --done-when file:out.txt >/dev/null
	echo content >out.txt # 8 bytes, committed by claim_report on work/1
	claim_report 1 w1
	c="$(git rev-parse work/1)"
	base="$(git rev-parse main)"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
	[ "$(tf 1 .lease_expires_ms)" = null ]
	[ "$(last_event 1)" = '{"kind":"verified","actor":"root","detail":{"commit":"'"$c"'","summary":"'"$OWN_TWO"'","verdict":1}}' ] ||
		fail "$(last_event 1)"
	run tf 1 '.last_verdict | [.task, .passed, .commit, .summary, .checks_version] | @json'
	assert_output '[1,true,"'"$c"'","'"$OWN_TWO"'",1]'
	run tf 1 '.last_verdict.checks | map({check, passed, exit_status, output}) | @json'
	assert_output '[{"check":"on-branch","passed":true,"exit_status":null,"output":"'"${c:0:12}"' is on refs/heads/work/1"},{"check":"new-work","passed":true,"exit_status":null,"output":"'"${c:0:12}"' holds work not on the trunk at the claim ('"${base:0:12}"'): 1 commit of its own"},{"check":"file:out.txt","passed":true,"exit_status":null,"output":"out.txt exists (8 bytes)"}]'
}

@test "file:PATH fails when the file is missing, empty or a directory" {
	daicho add missing --done-when file:missing.txt >/dev/null
	daicho add empty --done-when file:empty.txt >/dev/null
	daicho add dir --done-when file:d >/dev/null
	: >empty.txt
	mkdir d
	echo x >d/f
	for i in 1 2 3; do claim_report $i w1; done
	sweep_says 0 3 0 0 0
	for i in 1 2 3; do
		assert_task $i claimed w1 2
		[ "$(tf $i .last_verdict.passed)" = false ] || fail "#$i passed"
		[ "$(last_event $i | jq -r '"\(.kind) \(.detail.to)"')" = "rejected owner" ] || fail "#$i: $(last_event $i)"
	done
	[ "$(tf 1 'own[0].output')" = "missing.txt is missing" ]
	[ "$(tf 1 '.last_verdict.summary')" = "file:missing.txt: missing.txt is missing" ]
	[ "$(tf 2 'own[0].output')" = "empty.txt is empty" ]
	[ "$(tf 3 'own[0].output')" = "refused: d is a directory, not a regular file" ]
}

# --- cmd:SHELL ----------------------------------------------------------------

@test "cmd:SHELL passes on exit 0, with \$DAICHO_TASK set, at the root of the checkout of the reported commit" {
	mkdir sub
	cd sub # the worker and the sweep both stand in a subdirectory
	person daicho add --no-baseline a >/dev/null
	person daicho add --no-baseline t --done-when 'cmd:echo "task=$DAICHO_TASK pwd=$(pwd)"' >/dev/null
	claim_report 2 w1
	sweep_says 1 0 0 0 0
	assert_task 2 verified w1 1
	run tf 2 'own[0] | [.check, .passed, .exit_status] | @json'
	assert_output '["cmd:echo \"task=$DAICHO_TASK pwd=$(pwd)\"",true,0]'
	run tf 2 'own[0].output'
	[ "$output" = "task=2 pwd=$VERIFY_DIR/warm-0" ] || fail "output: $output"
}

@test "outside git: cmd: and file: checks run in the project root, and a report needs no commit" {
	sqlite_only "the project root of a ledger file in .daicho outside git"
	mkdir -p "$TEST_ROOT/plain/sub"
	cd "$TEST_ROOT/plain"
	export DAICHO_LEDGER="$TEST_ROOT/plain/.daicho/ledger.db"
	daicho init >/dev/null
	cd sub
	daicho add t --done-when 'cmd:echo "task=$DAICHO_TASK pwd=$(pwd)"' --done-when file:out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	echo content >"$TEST_ROOT/plain/out.txt"
	ok daicho report 1 --as w1
	ok daicho sweep
	[ "$(daicho show --json 1 | jq -r .state)" = verified ]
	run daicho show --json 1
	run jq -c '.last_verdict.checks | map([.check, .output])' <<<"$output"
	assert_output "$(jq -cn --arg o "task=1 pwd=$TEST_ROOT/plain"$'\n' '[["cmd:echo \"task=$DAICHO_TASK pwd=$(pwd)\"", $o], ["file:out.txt", "out.txt exists (8 bytes)"]]')"
}

@test "cmd:SHELL gets the task only through \$DAICHO_TASK: nothing from the task is pasted into the shell text" {
	person daicho add --no-baseline '$(touch pwned-title)' --body '`touch pwned-body`' --done-when 'cmd:echo "task $DAICHO_TASK"' >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	daicho report 1 --as w1 --commit "$(commit_work 1)" --note '"; touch pwned-note; echo "'
	sweep_says 1 0 0 0 0
	[ "$(tf 1 'own[0].output')" = "task 1" ]
	run ls "$REPO"
	refute_output --partial pwned
}

@test "cmd:SHELL fails on a non-zero exit: exit status and output tail recorded" {
	daicho add t --done-when 'cmd:echo to-stdout; echo to-stderr >&2; exit 3' >/dev/null
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	run tf 1 '.last_verdict | [.passed, .summary, own[0].passed, own[0].exit_status] | @json'
	assert_output '[false,"cmd:echo to-stdout; echo to-stderr >&2; exit 3: exit 3",false,3]'
	run tf 1 'own[0].output'
	assert_output $'to-stdout\nto-stderr'
	run tf 1 'own[0].duration_ms | type'
	assert_output number
}

@test "cmd:SHELL evidence keeps only the last 4 KB of output" {
	daicho add t --done-when 'cmd:echo FIRSTLINE; i=0; while [ $i -lt 500 ]; do echo "line $i abcdefghijklmnopqrstuvwxyz"; i=$((i+1)); done; echo LASTLINE; exit 1' >/dev/null
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	daicho show --json 1 | jq -j "$OWN_CHECKS own[0].output" >"$TEST_ROOT/out"
	[ "$(wc -c <"$TEST_ROOT/out")" -eq 4096 ] || fail "expected 4096 bytes, got $(wc -c <"$TEST_ROOT/out")"
	[ "$(tail -n 1 "$TEST_ROOT/out")" = LASTLINE ]
	[ "$(tail -n 2 "$TEST_ROOT/out" | head -n 1)" = "line 499 abcdefghijklmnopqrstuvwxyz" ]
	! grep -q FIRSTLINE "$TEST_ROOT/out"
}

@test "cmd:SHELL with a reported commit runs in a checkout of the judge's holding exactly that commit, emptied afterwards" {
	daicho add t --done-when 'cmd:pwd; git rev-parse HEAD; test -f out.txt && test ! -e scratch.txt' --touches out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	work_branch
	echo work >out.txt
	git add out.txt
	DAICHO_AGENT=w1 git commit -q -m work
	commit="$(git rev-parse HEAD)"
	echo untracked >scratch.txt # in the worker's directory, not in the commit
	daicho report 1 --as w1 --commit HEAD
	[ "$(tf 1 .commit)" = "$commit" ] # resolved to the full hash at report time
	git commit -q --allow-empty -m later # HEAD moves on; the check must use the reported commit

	# verify (no --apply) runs it where the sweep would, and cleans up.
	run --separate-stderr daicho verify --json 1
	[ "$status" -eq 0 ] || fail "verify: exit $status, stderr: $stderr"
	assert_no_worktrees

	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
	[ "$(tf 1 .last_verdict.commit)" = "$commit" ]
	out="$(tf 1 'own[0].output')"
	[ "$(sed -n 2p <<<"$out")" = "$commit" ] || fail "HEAD in the check: $out"
	[ "$(sed -n 1p <<<"$out")" = "$VERIFY_DIR/warm-0" ] || fail "cwd of the check: $out (want $VERIFY_DIR/warm-0)"
	assert_no_worktrees
}

# mutant: a warm checkout taken again without 'git clean -ffdx' (or without
# the forced checkout): what one task's checks left decides the next's.
@test "a warm checkout is used again for the next verification, holding only that commit: nothing a check left, changed or ignored stays" {
	printf 'left.txt\n' >.gitignore
	printf 'original\n' >tracked.txt
	git add .gitignore tracked.txt && git commit -qm 'ignore left.txt'
	person daicho add --no-baseline one --done-when 'cmd:echo left >left.txt; echo new >untracked.txt; echo changed >tracked.txt; mkdir -p d/e; echo x >d/e/f' >/dev/null
	person daicho add --no-baseline two --done-when 'cmd:test ! -e left.txt && test ! -e untracked.txt && test ! -e d && grep -qx original tracked.txt && pwd' >/dev/null
	claim_report 1 w1
	sweep_says 1 0 0 0 0
	claim_report 2 w2
	sweep_says 1 0 0 0 0
	[ "$(tf 2 'own[0].output')" = "$VERIFY_DIR/warm-0" ]
	assert_no_worktrees
	# Two at once take two.
	person daicho add --no-baseline three --done-when 'cmd:sleep 1; pwd' >/dev/null
	person daicho add --no-baseline four --done-when 'cmd:sleep 1; pwd' >/dev/null
	claim_report 3 w1
	claim_report 4 w2
	SWEEP_OPTS="-j 2" sweep_says 2 0 0 0 0
	[ "$(printf '%s\n' "$(tf 3 'own[0].output')" "$(tf 4 'own[0].output')" | sort | paste -sd " ")" = "$VERIFY_DIR/warm-0 $VERIFY_DIR/warm-1" ] ||
		fail "checkouts: $(tf 3 'own[0].output') $(tf 4 'own[0].output')"
	assert_no_worktrees
}

# report_committed_file: task 1, done when out.txt exists, claimed by w1,
# who commits out.txt and reports that commit.
report_committed_file() {
	daicho add t --done-when 'file:out.txt' >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	work_branch
	echo work >out.txt
	git add out.txt
	git commit -q -m work
	daicho report 1 --as w1 --commit HEAD
}

@test "a worktree add that loses git's race is tried again: the honest report is verified" {
	report_committed_file
	fake_worktree_add_failure once
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
	[ "$(wc -l <"$TEST_ROOT/fakegit/tries")" -eq 2 ]
	assert_no_worktrees
}

@test "a worktree add that keeps failing rejects the report with git's own reason" {
	report_committed_file
	fake_worktree_add_failure always
	sweep_says 0 1 0 0 0
	out="$(tf 1 'own[0].output')"
	[[ "$out" == *"failed (exit 128: fatal: could not create directory of '.git/worktrees/x': No such file or directory)"* ]] ||
		fail "checkout evidence: $out"
	[ "$(wc -l <"$TEST_ROOT/fakegit/tries")" -eq 3 ]
	assert_no_worktrees
}

@test "a worktree add that fails for another reason is not tried again" {
	report_committed_file
	fake_worktree_add_failure other
	sweep_says 0 1 0 0 0
	out="$(tf 1 'own[0].output')"
	[[ "$out" == *"failed (exit 128: fatal: hook post-checkout failed)"* ]] ||
		fail "checkout evidence: $out"
	[ "$(wc -l <"$TEST_ROOT/fakegit/tries")" -eq 1 ]
}

@test "a cmd: check that times out is rejected, its process group killed, no stray process left" {
	daicho add t --check-timeout 1s --done-when "cmd:echo begin; $TIMEOUT_MARK & $TIMEOUT_MARK" >/dev/null
	claim_report 1 w1
	SECONDS=0
	sweep_says 0 1 0 0 0
	[ "$SECONDS" -lt 10 ] || fail "the sweep took ${SECONDS}s with a 1s check timeout"
	assert_task 1 claimed w1 2
	run tf 1 '.last_verdict | [.passed, .summary, own[0].passed, own[0].exit_status, own[0].output] | @json'
	assert_output "$(jq -cn --arg c "cmd:echo begin; $TIMEOUT_MARK & $TIMEOUT_MARK" \
		'[false, ($c + ": timed out"), false, null, "begin\n[daicho: timed out after 1.0s; process group killed]\n"]')"
	run daicho show 1
	assert_line --partial '[daicho: timed out after 1.0s; process group killed]'
	# Both sleeps (the background one and the foreground one) are gone.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "$TIMEOUT_MARK" >/dev/null || break
		sleep 0.1
	done
	run pgrep -af "$TIMEOUT_MARK"
	[ "$status" -eq 1 ] || fail "stray processes left: $output"
}

# report_on_branch CHECK...: task 1, done when every CHECK passes (check
# timeout $CHECK_TIMEOUT, 30s by default), claimed by w1, who commits on
# branch work and reports that commit, so that its checks run in a
# verification worktree at it.
report_on_branch() {
	local check args=()
	for check in "$@"; do
		args+=(--done-when "$check")
	done
	# The checks here are about what a check leaves running, not about
	# the work: they pass before it too (the person says so).
	person daicho add t --no-baseline --check-timeout "${CHECK_TIMEOUT:-30s}" "${args[@]}" >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ] || fail "claim 1 failed"
	git checkout -q -b work
	echo work >out.txt
	git add out.txt
	git commit -q -m work
	daicho report 1 --as w1 --commit HEAD
}

@test "cmd: checks leave nothing running: not what they setsid, double fork or nohup, nor what that forks" {
	report_on_branch \
		"cmd:$(started 'setsid sleep 313 &' '^sleep 313$')" \
		"cmd:$(started "(sh -c 'sleep 314 &' &);" '^sleep 314$')" \
		"cmd:$(started 'nohup sleep 315 >/dev/null 2>&1 &' '^sleep 315$')" \
		"cmd:$(started "setsid sh -c 'sleep 316 & exec sleep 316' &" '^sleep 316$')"
	SECONDS=0
	run --separate-stderr daicho verify 1
	[ "$status" -eq 0 ] || fail "verify: exit $status, stderr: $stderr, output: $output"
	assert_line --index 0 --regexp "^#1 passes: 4 checks passed \\(and daicho's [0-9]: [a-z, -]+\\)$"
	assert_none_left '^sleep 313$' '^sleep 314$' '^sleep 315$' '^sleep 316$'
	# Nothing waited for the strays (they hold the output pipe open).
	[ "$SECONDS" -lt 10 ] || fail "verify took ${SECONDS}s"
	assert_no_worktrees
}

@test "a cmd: check that times out leaves nothing running, not even what left its process group" {
	CHECK_TIMEOUT=1s report_on_branch "cmd:$(started 'setsid sleep 317 &' '^sleep 317$') setsid sleep 317"
	SECONDS=0
	sweep_says 0 1 0 0 0
	[ "$SECONDS" -lt 10 ] || fail "the sweep took ${SECONDS}s with a 1s check timeout"
	assert_task 1 claimed w1 2
	run tf 1 'own[0] | [.passed, .exit_status, .output] | @json'
	assert_output '[false,null,"[daicho: timed out after 1.0s; process group killed]\n"]'
	assert_none_left '^sleep 317$'
}

@test "daicho killed while a check runs leaves nothing of the check running" {
	report_on_branch "cmd:$(started 'setsid sleep 319 &' '^sleep 319$') sleep 319"
	daicho verify 1 >/dev/null 2>&1 3>&- &
	local verifier=$!
	for _ in $(seq 50); do
		[ "$(pgrep -fc '^sleep 319$')" -eq 2 ] && break
		sleep 0.1
	done
	[ "$(pgrep -fc '^sleep 319$')" -eq 2 ] || fail "the check did not start: $(pgrep -af 'sleep 319')"
	kill -KILL "$verifier"
	wait "$verifier" || true
	assert_none_left '^sleep 319$'
}

@test "--check-timeout and done_when are taken from --batch too" {
	ok daicho add --batch - <<-'EOF'
		{"title":"b","done_when":["file:x.txt","cmd:true","saved","commit"],"check_timeout":"2s"}
	EOF
	assert_output 1
	run tf 1 '[.done_when, .check_timeout_ms] | @json'
	assert_output '[["file:x.txt","cmd:true","saved","commit"],2000]'
}

# --- saved ---------------------------------------------------------------------

@test "saved fails with no save or an empty save and passes with a non-empty save" {
	daicho add none --done-when saved >/dev/null
	daicho add empty --done-when saved >/dev/null
	daicho add full --done-when saved >/dev/null
	for i in 1 2 3; do [ "$(daicho claim $i --as w1)" = $i ]; done
	printf '' | daicho save 2 --as w1
	printf 'the result' | daicho save 3 --as w1
	for i in 1 2 3; do daicho report $i --as w1; done
	sweep_says 1 2 0 0 0
	assert_task 1 claimed w1 2
	assert_task 2 claimed w1 2
	assert_task 3 verified w1 1
	[ "$(tf 1 'own[0] | "\(.passed) \(.output)"')" = "false no result saved" ]
	[ "$(tf 2 'own[0] | "\(.passed) \(.output)"')" = "false the saved result is empty" ]
	[ "$(tf 3 'own[0] | "\(.passed) \(.output)"')" = "true a result is saved" ]
}

# --- commit ---------------------------------------------------------------------

@test "commit passes for a commit that changes files and fails for an empty commit; a report without a commit is refused" {
	daicho add changes --done-when commit >/dev/null
	daicho add empty --done-when commit >/dev/null
	daicho add nocommit --done-when commit >/dev/null
	for i in 1 2 3; do [ "$(daicho claim $i --as w1)" = $i ]; done
	work_branch
	echo work >work.txt
	git add work.txt
	git commit -q -m work
	c1="$(git rev-parse HEAD)"
	daicho report 1 --as w1 --commit "$c1"
	# An empty commit whose tree is not #1's (work of its own before it,
	# on a branch of its own: #1's work is not #2's), so that it is judged
	# by the commit check, not as #1's work again.
	git checkout -q -b work2 main
	echo more >more.txt
	git add more.txt
	git commit -q -m more
	git commit -q --allow-empty -m nothing
	c2="$(git rev-parse HEAD)"
	daicho report 2 --as w1 --commit HEAD
	snapshot_ledger
	refused 2 daicho report 3 --as w1
	assert_equal "$stderr" "daicho: task #3 has checks that look at the work, and verification sees only committed work (commit it on a branch, then 'daicho report 3 --commit HEAD')"
	assert_ledger_unchanged
	sweep_says 1 1 0 0 0
	assert_task 1 verified w1 1
	assert_task 2 claimed w1 2
	assert_task 3 claimed w1 1
	[ "$(tf 1 'own[0] | "\(.passed) \(.output)"')" = "true ${c1:0:12} changes files" ]
	[ "$(tf 2 'own[0] | "\(.passed) \(.output)"')" = "false ${c2:0:12} changes nothing" ]
	assert_no_worktrees
}

# --- where the checks run -----------------------------------------------------

@test "a file left uncommitted in the worker's directory but absent from the reported commit is rejected" {
	daicho add t --done-when file:out.txt >/dev/null
	git worktree add -q -b work "$TEST_ROOT/wk"
	cd "$TEST_ROOT/wk" # the worker's own checkout (same ledger, through the git common dir)
	[ "$(daicho claim 1 --as w1)" = 1 ]
	echo "the work" >out.txt # never committed
	echo other >other.txt
	git add other.txt
	git commit -q -m "not the file"
	daicho report 1 --as w1 --commit HEAD
	echo "also here" >"$REPO/out.txt" # even the project root has it, uncommitted
	cd "$REPO"
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	run tf 1 '.last_verdict | [.passed, .summary, own[0].output] | @json'
	assert_output '[false,"file:out.txt: out.txt is missing","out.txt is missing"]'
	[ -f "$TEST_ROOT/wk/out.txt" ] # the worker's file is untouched
	assert_no_worktrees

	# Once committed and reported again, the same check passes.
	cd "$TEST_ROOT/wk"
	git add out.txt
	git commit -q -m "the file"
	daicho report 1 --as w1 --commit HEAD
	cd "$REPO"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 2
	assert_no_worktrees
}

# --- paths that leave the repository --------------------------------------------

@test "add refuses file:../secret, a .. escape and an absolute path (exit 2, ledger unchanged)" {
	daicho add first >/dev/null # the human is registered
	snapshot_ledger
	refused 2 daicho add t --done-when file:../secret
	assert_equal "$stderr" "daicho: done-when 'file:../secret' leaves the repository ('..' is not allowed)"
	refused 2 daicho add t --done-when file:sub/../../secret
	assert_equal "$stderr" "daicho: done-when 'file:sub/../../secret' leaves the repository ('..' is not allowed)"
	refused 2 daicho add t --done-when file:/etc/hostname
	assert_equal "$stderr" "daicho: done-when 'file:/etc/hostname' is an absolute path (paths are relative to the repository root)"
	refused 2 daicho add --batch - <<<'{"title":"t","done_when":["file:../secret"]}'
	assert_equal "$stderr" "daicho: line 1: done-when 'file:../secret' leaves the repository ('..' is not allowed)"
	refused 2 daicho add t --done-when bogus
	assert_ledger_unchanged
}

@test "add refuses file:PATH through a symlink in the repository that leaves it" {
	# The issue: "symlinks that leave the tree are refused at add time and at check time".
	ln -s /etc/hostname out.txt
	daicho add first >/dev/null
	snapshot_ledger
	refused 2 daicho add t --done-when file:out.txt
	assert_ledger_unchanged
}

@test "a committed symlink pointing outside the repository is refused at check time" {
	daicho add t --done-when file:out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	work_branch
	ln -s /etc/hostname out.txt
	git add out.txt
	git commit -q -m "link out"
	daicho report 1 --as w1 --commit HEAD
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	run tf 1 '.last_verdict.summary'
	assert_output 'in-commit: out.txt is a symbolic link to /etc/hostname, outside the commit: the work must be in the commit'
	assert_no_worktrees
}

@test "outside git, a symlink pointing outside the project is refused by the file: check itself" {
	sqlite_only "the project root of a ledger file in .daicho outside git"
	mkdir -p "$TEST_ROOT/plain"
	cd "$TEST_ROOT/plain"
	export DAICHO_LEDGER="$TEST_ROOT/plain/.daicho/ledger.db"
	daicho init >/dev/null
	daicho add t --done-when file:out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	ln -s /etc/hostname out.txt
	daicho report 1 --as w1
	ok daicho sweep
	run daicho show --json 1
	run jq -r '.last_verdict.checks[0].output' <<<"$output"
	assert_output 'refused: out.txt resolves to /etc/hostname, outside the repository'
}

@test "a committed symlinked directory leading outside the repository is refused at check time" {
	daicho add t --done-when file:etcdir/hostname >/dev/null
	ln -s /etc etcdir
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	run tf 1 '.last_verdict.summary'
	assert_output 'in-commit: etcdir is a symbolic link to /etc, outside the commit: the work must be in the commit'
}

# --- report --commit ------------------------------------------------------------------

@test "report --commit with a REV that does not exist is refused (exit 3); the task stays claimed" {
	export DAICHO_NOW_MS=$T0 # heartbeats renew the lease to the same value
	daicho add t --done-when commit >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	snapshot_ledger
	refused 3 daicho report 1 --as w1 --commit nosuchrev
	assert_equal "$stderr" "daicho: no commit 'nosuchrev' in this repository (commit your work, then report its hash)"
	refused 3 daicho report 1 --as w1 --commit 0123456789abcdef0123456789abcdef01234567
	assert_ledger_unchanged
	assert_task 1 claimed w1 1
	[ "$(event_kinds 1)" = "add claim" ]
}

# --- verdicts -------------------------------------------------------------------------

@test "a task whose checks pass after one rejection is verified on the second report with attempts = 2" {
	daicho add t --done-when file:out.txt >/dev/null
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	echo done >out.txt
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 2
	run daicho show --json 1
	jq -e '.state == "verified" and .attempts == 2 and .last_verdict.passed == true' <<<"$output" >/dev/null || fail "$output"
	[ "$(event_kinds 1)" = "add claim report rejected report verified" ]
}

# mutant: tell_holder() sends nothing: the holder's inbox stays empty and
# its next command says nothing of the rejection.
@test "the holder of a rejected report is told, as of other changes: rejected and still its own, then failed" {
	daicho add t --max-attempts 2 --done-when file:out.txt >/dev/null
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	run daicho inbox --as w1 --json
	[ "$(jq length <<<"$output")" = 1 ] || fail "$output"
	[ "$(jq -r '.[0].text' <<<"$output")" = "your report of #1 was rejected (attempt 2 of 2): file:out.txt: out.txt is missing; it is still yours: fix it, commit and report again ('daicho prompt 1' shows the evidence)" ] ||
		fail "$output"
	[ "$(jq -r '.[0].from' <<<"$output")" != w1 ] || fail "from itself: $output"
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 0 1 1 0 0
	run daicho inbox --as w1 --json
	[[ "$(jq -r '.[0].text' <<<"$output")" == "your report of #1 was rejected and the task has failed, its 2 attempts used up: file:out.txt: out.txt is missing; stop working on it" ]] ||
		fail "$output"
	# Verified work sends nothing.
	daicho add u --done-when file:u.txt >/dev/null
	echo u >u.txt
	claim_report 2 w2
	sweep_says 1 0 0 0 0
	[ "$(daicho inbox --as w2 --json | jq length)" = 0 ]
	# Checks that passed before the work: blocked for a person, and said so.
	daicho add v --done-when file:README >/dev/null
	claim_report 3 w3
	daicho sweep >/dev/null
	[[ "$(daicho inbox --as w3 --json | jq -r '.[0].text')" == "#3 is blocked for a person, not for your work: "*"; wait for them ('daicho show 3')" ]] ||
		fail "$(daicho inbox --as w3 --json)"
}

# mutant: the old sentence ("%A verified %T"): the person who started the
# sweep reads as the one who verified the work.
@test "the log says the sweep verified a report, and who ran it; not that the person did" {
	daicho add t --done-when file:t.txt >/dev/null
	echo t >t.txt
	claim_report 1 w1
	sweep_says 1 0 0 0 0
	run daicho log 1
	[[ "$output" == *"the sweep (run by $(id -un)) verified #1 t at commit "*": 1 check passed"* ]] || fail "$output"
	[[ "$output" != *"$(id -un) verified #1"* ]] || fail "$output"
}

@test "--max-attempts 1: a failing report fails the task, with a fail event" {
	daicho add t --max-attempts 1 --done-when file:out.txt >/dev/null
	claim_report 1 w1
	sweep_says 0 1 1 0 0
	run tf 1 '"\(.state) \(.attempts) \(.max_attempts)"'
	assert_output "failed 1 1"
	[ "$(event_kinds 1)" = "add claim report rejected fail" ]
	run daicho events --json
	run jq -c '[.[] | select(.task == 1 and (.kind == "rejected" or .kind == "fail")) | {kind, d: (.detail | {to, attempts, reason})}]' <<<"$output"
	assert_output '[{"kind":"rejected","d":{"to":"failed","attempts":null,"reason":null}},{"kind":"fail","d":{"to":null,"attempts":1,"reason":"attempts exhausted"}}]'
	refused 4 daicho claim 1 --as w2
}

@test "dependents become ready only after verification, never on report" {
	daicho add a --done-when file:a.txt >/dev/null
	daicho add b --after 1 >/dev/null
	claim_report 1 w1
	[ "$(tf 1 .state)" = reported ]
	run daicho ls --ready --json
	assert_output '[]'
	[ "$(tf 2 .unmet_after)" = 1 ]
	refused 4 daicho claim 2 --as w2
	sweep_says 0 1 0 0 0 # rejected: still not ready
	run daicho ls --ready --json
	assert_output '[]'
	echo a >a.txt
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	run daicho ls --ready --json
	assert_output '[]'
	sweep_says 1 0 0 0 0
	run daicho ls --ready --json
	[ "$(jq -c 'map(.id)' <<<"$output")" = "[2]" ] || fail "$output"
	[ "$(tf 2 .unmet_after)" = 0 ]
	ok daicho claim 2 --as w2
	assert_output 2
}

@test "a task with no checks: verified on 'saved' when it has a result, else on the report alone; show says which" {
	daicho add with-result >/dev/null
	daicho add report-only >/dev/null
	run daicho show 1
	assert_line --regexp '^done when +the report alone \(no checks given, no result saved\)$'
	[ "$(daicho claim 1 --as w1)" = 1 ]
	[ "$(daicho claim 2 --as w1)" = 2 ]
	printf 'answer' | daicho save 1 --as w1
	run daicho show 1
	assert_line --regexp '^done when +saved \(no checks given; a result is saved\)$'
	run daicho show 2
	assert_line --regexp '^done when +the report alone \(no checks given, no result saved\)$'
	daicho report 1 --as w1
	daicho report 2 --as w1
	sweep_says 2 0 0 0 0
	assert_task 1 verified w1 1
	assert_task 2 verified w1 1
	run tf 1 '.last_verdict | [.summary, (.checks | map([.check, .passed, .output]))] | @json'
	assert_output '["1 check passed",[["saved",true,"a result is saved"]]]'
	run tf 2 '.last_verdict | [.summary, .checks] | @json'
	assert_output '["no checks: accepted on the report",[]]'
}

# --- show ---------------------------------------------------------------------

@test "show prints the evidence of the last verdict: each check, PASS/FAIL and the output tail" {
	person daicho add --no-baseline t --done-when file:README --done-when 'cmd:cat msg.txt; test -f ok' >/dev/null
	run daicho show 1
	refute_line --regexp '^verdict'
	[ "$(tf 1 .last_verdict)" = null ]
	echo oops >msg.txt
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	run --separate-stderr daicho show 1
	[ "$status" -eq 0 ]
	assert_line --regexp '^done when +file:README; cmd:cat msg.txt; test -f ok$'
	assert_line --regexp '^verdict +REJECTED .*: cmd:cat msg.txt; test -f ok: exit 1$'
	assert_line --regexp '^ +PASS file:README  \([0-9]+ms\)$'
	assert_line --regexp '^ +README exists \(6 bytes\)$'
	assert_line --regexp '^ +FAIL cmd:cat msg.txt; test -f ok  \(exit 1, [0-9.]+m?s\)$'
	assert_line --regexp '^ +oops$'
	# After a pass, the new verdict replaces it.
	echo fine >msg.txt
	touch ok
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
	run daicho show 1
	assert_line --regexp "^verdict +passed .*: 2 checks passed \\(and daicho's [0-9]: [a-z, -]+\\)$"
	assert_line --regexp '^ +PASS cmd:cat msg.txt; test -f ok  \(exit 0, [0-9.]+m?s\)$'
	assert_line --regexp '^ +fine$'
	refute_line --partial oops
}

# --- verify ID ------------------------------------------------------------------

@test "verify ID prints the evidence and changes nothing; exit 5 when a check fails" {
	person daicho add --no-baseline good --done-when file:README >/dev/null
	person daicho add --no-baseline bad --done-when file:a.txt --done-when 'cmd:echo "checking $DAICHO_TASK"' >/dev/null
	claim_report 1 w1
	claim_report 2 w1
	ledger_data >"$TEST_ROOT/dump.before"

	c1="$(git rev-parse work/1)"
	run --separate-stderr daicho verify 1
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	[ -z "$stderr" ]
	assert_line --index 0 --regexp "^#1 passes: 1 check passed \\(and daicho's [0-9]: [a-z, -]+\\)$"
	assert_line --index 1 "  at commit $c1"
	assert_line --index 2 --regexp '^  PASS on-branch  \([0-9]+ms\)$'
	assert_line --index 3 "       ${c1:0:12} is on refs/heads/work/1"
	assert_line --index 4 --regexp '^  PASS new-work  \([0-9]+ms\)$'
	assert_line --index 6 --regexp '^  PASS file:README  \([0-9]+ms\)$'
	assert_line --index 7 '       README exists (6 bytes)'
	[ "${#lines[@]}" -eq 8 ] || fail "$output"

	run --separate-stderr daicho verify 2
	[ "$status" -eq 5 ] || fail "exit $status: $stderr"
	assert_equal "$stderr" "daicho: 1 task failed verification"
	assert_line --index 0 '#2 FAILS: file:a.txt: a.txt is missing'
	assert_line --index 6 --regexp '^  FAIL file:a.txt  \([0-9]+ms\)$'
	assert_line --index 7 '       a.txt is missing'
	assert_line --index 8 --regexp '^  PASS cmd:echo "checking \$DAICHO_TASK"  \(exit 0, [0-9.]+m?s\)$'
	assert_line --index 9 '       checking 2'

	run --separate-stderr daicho verify 2 --json
	[ "$status" -eq 5 ]
	run jq -c 'map({task, passed, summary, checks: (.checks | map({check, passed}))})' <<<"$output"
	assert_output '[{"task":2,"passed":false,"summary":"file:a.txt: a.txt is missing","checks":[{"check":"on-branch","passed":true},{"check":"new-work","passed":true},{"check":"file:a.txt","passed":false},{"check":"cmd:echo \"checking $DAICHO_TASK\"","passed":true}]}]'

	ledger_data >"$TEST_ROOT/dump.after"
	cmp -s "$TEST_ROOT/dump.before" "$TEST_ROOT/dump.after" ||
		fail "verify without --apply changed the ledger: $(diff "$TEST_ROOT/dump.before" "$TEST_ROOT/dump.after" | head)"
	run sql "SELECT id, state, attempts FROM tasks ORDER BY id"
	assert_output $'1|reported|1\n2|reported|1'
}

@test "verify ID --apply on a reported task applies the verdict as the sweep would" {
	person daicho add --no-baseline good --done-when file:README >/dev/null
	person daicho add --no-baseline bad --done-when file:a.txt >/dev/null
	claim_report 1 w1
	claim_report 2 w1

	run --separate-stderr daicho verify 1 --apply
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	assert_line --index 0 --regexp "^#1 passes: 1 check passed \\(and daicho's [0-9]: [a-z, -]+\\) \\[verified\\]$"
	assert_task 1 verified w1 1
	[ "$(last_event 1 | jq -r .kind)" = verified ]

	run --separate-stderr daicho verify 2 --apply
	[ "$status" -eq 5 ]
	assert_line --index 0 '#2 FAILS: file:a.txt: a.txt is missing [rejected: back to its owner]'
	assert_task 2 claimed w1 2
	[ "$(last_event 2 | jq -r '"\(.kind) \(.detail.to)"')" = "rejected owner" ]

	# claimed again (not reported): nothing to apply
	refused 4 daicho verify 2 --apply
	assert_task 2 claimed w1 2
}

@test "verify --all-verified lists verified tasks that no longer pass, changing nothing; --apply reopens them" {
	unsandboxed
	# The checks run at the recorded commit, which cannot change; what a
	# cmd: check depends on outside the repository can.
	touch "$TEST_ROOT/service-up"
	person daicho add --no-baseline a --done-when file:a.txt --done-when "cmd:test -f $TEST_ROOT/service-up" >/dev/null
	person daicho add --no-baseline dependent --after 1 >/dev/null
	person daicho add --no-baseline still-good --done-when file:README >/dev/null
	echo a >a.txt
	claim_report 1 w1
	claim_report 3 w1
	sweep_says 2 0 0 0 0
	[ "$(daicho ls --ready --json | jq -c 'map(.id)')" = "[2]" ]
	rm "$TEST_ROOT/service-up"
	ledger_data >"$TEST_ROOT/dump.before"

	run --separate-stderr daicho verify --all-verified
	[ "$status" -eq 5 ] || fail "exit $status: $stderr"
	assert_equal "$stderr" "daicho: 1 task failed verification"
	assert_line "#1 FAILS: cmd:test -f $TEST_ROOT/service-up: exit 1 (checks ran unsandboxed: 'sandbox' is off)"
	assert_line --regexp "^#3 passes: 1 check passed \\(and daicho's [0-9]: [a-z, -]+\\)$"
	assert_line '2 verified tasks checked, 1 no longer passes'
	ledger_data >"$TEST_ROOT/dump.after"
	cmp -s "$TEST_ROOT/dump.before" "$TEST_ROOT/dump.after" ||
		fail "verify --all-verified changed the ledger: $(diff "$TEST_ROOT/dump.before" "$TEST_ROOT/dump.after" | head)"

	run --separate-stderr daicho verify --all-verified --json
	[ "$status" -eq 5 ]
	run jq -c 'map([.task, .passed])' <<<"$output"
	assert_output '[[1,false],[3,true]]'

	run --separate-stderr daicho verify --all-verified --apply
	[ "$status" -eq 5 ]
	assert_line "#1 FAILS: cmd:test -f $TEST_ROOT/service-up: exit 1 (checks ran unsandboxed: 'sandbox' is off) [reopened: no longer passes]"
	assert_line --regexp "^#3 passes: 1 check passed \\(and daicho's [0-9]: [a-z, -]+\\) \\[still verified\\]$"
	run sql "SELECT id, state, CASE WHEN owner IS NULL THEN 1 ELSE 0 END FROM tasks ORDER BY id"
	assert_output $'1|open|1\n2|open|1\n3|verified|0'
	run last_event 1
	assert_output '{"kind":"reopened","actor":"root","detail":{"commit":"'"$(git rev-parse work/1)"'","summary":"cmd:test -f '"$TEST_ROOT"'/service-up: exit 1 (checks ran unsandboxed: '"'sandbox'"' is off)","verdict":3}}'
	# the dependent is no longer ready; the reopened task is
	[ "$(daicho ls --ready --json | jq -c 'map(.id)')" = "[1]" ]
	[ "$(tf 2 .unmet_after)" = 1 ]
	refused 4 daicho claim 2 --as w2
}

@test "verify --all-verified re-checks at the recorded commit" {
	daicho add t --done-when file:out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	work_branch
	echo x >out.txt
	git add out.txt
	git commit -q -m work
	daicho report 1 --as w1 --commit HEAD
	sweep_says 1 0 0 0 0
	git rm -q out.txt
	git commit -q -m "remove it later" # the recorded commit still has it
	run --separate-stderr daicho verify --all-verified
	[ "$status" -eq 0 ] || fail "exit $status: $output $stderr"
	assert_line --regexp "^#1 passes: 1 check passed \\(and daicho's [0-9]: [a-z, -]+\\)$"
	assert_no_worktrees
}

# --- bad input ------------------------------------------------------------------

@test "verify: bad input is refused and changes nothing" {
	daicho add open-task >/dev/null
	snapshot_ledger
	refused 2 daicho verify
	assert_equal "$stderr" "daicho: verify takes an ID or --all-verified, one of the two"
	refused 2 daicho verify 1 --all-verified
	assert_equal "$stderr" "daicho: verify takes an ID or --all-verified, one of the two"
	refused 2 daicho verify abc
	refused 3 daicho verify 99
	assert_equal "$stderr" "daicho: no task #99 (see 'daicho ls')"
	refused 4 daicho verify 1 --apply
	assert_equal "$stderr" "daicho: cannot apply a verdict to task #1: it is open (only reported or verified tasks; drop --apply to just run the checks)"
	assert_ledger_unchanged
	run sql "SELECT state, attempts FROM tasks"
	assert_output "open|0"
}

# --- what counts as evidence ------------------------------------------------------

# rejected_for ID WORDS: the last verdict of ID failed, and its summary
# contains WORDS.
rejected_for() {
	local summary
	summary="$(tf "$1" .last_verdict.summary)"
	[ "$(tf "$1" .last_verdict.passed)" = false ] || fail "#$1 passed: $summary"
	[[ "$summary" == *"$2"* ]] || fail "#$1: expected '$2' in the verdict, got: $summary"
}

@test "file: is met by a regular file only: a symlink, a symlink to a directory, a path through a symlinked directory are refused, each saying why" {
	mkdir docs
	echo real >docs/real.md
	ln -s README link.md
	ln -s docs dirlink
	ln -s nowhere dangling.md
	daicho add a --done-when file:link.md >/dev/null
	daicho add b --done-when file:dirlink >/dev/null
	daicho add c --done-when file:dirlink/real.md >/dev/null
	daicho add d --done-when file:dangling.md >/dev/null
	daicho add honest --done-when file:docs/real.md >/dev/null
	for i in 1 2 3 4 5; do claim_report $i w1; done
	sweep_says 1 4 0 0 0
	rejected_for 1 "link.md is a symbolic link (a file: check needs a regular file)"
	rejected_for 2 "dirlink is a symbolic link"
	rejected_for 3 "dirlink/real.md is reached through dirlink, a symbolic link"
	rejected_for 4 "dangling.md is a symbolic link that leads nowhere"
	assert_task 5 verified w1 1
}

@test "new work: the initial commit, or an old commit already on the trunk at the claim, is rejected" {
	echo x >old.txt
	git add old.txt
	git commit -q -m "old work"
	daicho add t --done-when file:old.txt >/dev/null
	daicho add u --done-when file:README >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	[ "$(daicho claim 2 --as w1)" = 2 ]
	old="$(git rev-parse HEAD)"
	daicho report 1 --as w1 --commit HEAD
	daicho report 2 --as w1 --commit "$(git rev-list --max-parents=0 HEAD)"
	sweep_says 0 2 0 0 0
	rejected_for 1 "new-work: ${old:0:12} was already on the trunk (at ${old:0:12}) when #1 was claimed"
	rejected_for 2 "when #2 was claimed: it holds no new work"
	assert_task 1 claimed w1 2
	[ "$(tf 1 .claim_base)" = "$old" ]
}

@test "new work: a commit already accepted for another task is rejected" {
	person daicho add --no-baseline one --done-when file:README >/dev/null
	person daicho add --no-baseline two --done-when file:README >/dev/null
	claim_report 1 w1
	sweep_says 1 0 0 0 0
	[ "$(daicho claim 2 --as w2)" = 2 ]
	daicho report 2 --as w2 --commit work/1
	sweep_says 0 1 0 0 0
	rejected_for 2 "(or the same content) was already accepted for #1: work counts for one task"
}

@test "new work is judged against the trunk set with 'daicho config trunk', whatever the main checkout has out" {
	ok person daicho config trunk main
	git checkout -q -b side
	echo s >side.txt
	git add side.txt
	git commit -q -m side # on side, not on main
	daicho add t --done-when file:side.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	[ "$(tf 1 .claim_base)" = "$(git rev-parse main)" ]
	daicho report 1 --as w1 --commit side
	sweep_says 1 0 0 0 0
}

@test "a commit on no branch (git commit-tree) is rejected; the same work on a branch or a tag is verified" {
	daicho add t --done-when file:out.txt >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	echo out >out.txt
	commit="$(commit_work 1)"
	git update-ref -d refs/heads/work/1
	daicho report 1 --as w1 --commit "$commit"
	sweep_says 0 1 0 0 0
	rejected_for 1 "on-branch: ${commit:0:12} is on no branch or tag (git may collect it"
	git tag done-1 "$commit"
	daicho report 1 --as w1 --commit "$commit"
	sweep_says 1 0 0 0 0
	[ "$(tf 1 '.last_verdict.checks[0].output')" = "${commit:0:12} is on refs/tags/done-1" ]
}

@test "protected paths: a report whose commit changes a path the task protects is rejected, naming it" {
	printf 'test -s out.md\n' >test.sh
	git add test.sh
	git commit -q -m "the test"
	daicho add t --done-when 'cmd:sh test.sh' --protect test.sh --touches out.md >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	echo 'exit 0' >test.sh # the shortcut
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 0 1 0 0 0
	rejected_for 1 "protected: "
	rejected_for 1 "changes test.sh, which this task protects (--protect 'test.sh')"
	# No check ran: the shortcut's evidence is not worth running.
	[ "$(tf 1 '[.last_verdict.checks[].check] | join(",")')" = "on-branch,new-work,protected" ]
	# Honest: the test untouched, the work done.
	git checkout -q test.sh
	echo result >out.md
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
	[ "$(tf 1 '.last_verdict.checks[2].output')" = "$(git rev-parse work/1 | cut -c1-12) changes 2 paths against the trunk at the claim ($(git rev-parse main | cut -c1-12)), none protected" ]
}

@test "protected paths: the ledger's list applies to every task except paths it declares with --touches" {
	mkdir tests
	echo 'true' >tests/run.sh
	git add tests
	git commit -q -m tests
	ok person daicho config protect 'tests/**'
	daicho add worker --done-when file:out.md >/dev/null
	# A person's tasks (at a terminal): their touches are what exempts.
	person daicho add test-writer --touches 'tests/**' --done-when file:tests/new.sh >/dev/null
	person daicho add guarded-writer --touches 'tests/**' --protect tests/run.sh --done-when file:tests/new2.sh >/dev/null
	echo out >out.md
	echo 'exit 0' >tests/run.sh
	claim_report 1 w1
	git checkout -q tests/run.sh
	echo new >tests/new.sh
	claim_report 2 w2
	sweep_says 1 1 0 0 0
	rejected_for 1 "changes tests/run.sh, which the ledger protects ('daicho config protect': 'tests/**')"
	assert_task 2 verified w2 1
	# #3 touches tests/** too (after #2: they overlap), but protects one file.
	echo 'exit 0' >tests/run.sh
	echo new >tests/new2.sh
	claim_report 3 w3
	sweep_says 0 1 0 0 0
	rejected_for 3 "changes tests/run.sh, which this task protects (--protect 'tests/run.sh')"
}

# The protect trap (issue 31). mutants: warn_protected_scope() silent; the
# rejection without its remedy; a person's edit with the same --touches
# answered "nothing to change".
@test "protected paths: an agent's task whose job is a protected path: add warns, the rejection says how to exempt it, a person's same --touches does" {
	mkdir tests
	echo 'broken' >tests/t.sh
	git add tests
	git commit -q -m tests
	ok person daicho config protect 'tests/**'
	run --separate-stderr daicho --as lead add 'fix the test' --touches 'tests/**' --done-when file:tests/t.sh --no-baseline
	[ "$status" -eq 6 ] || fail "an agent gave --no-baseline: $status"
	run --separate-stderr daicho --as lead add 'fix the test' --touches 'tests/**' --done-when 'cmd:grep -q fixed tests/t.sh'
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ "$stderr" == *"note: #1 touches tests/**, which the ledger protects ('daicho config protect': 'tests/**'); touches not set by a person at a terminal do not exempt it"*"'daicho edit 1 --touches ...'"* ]] ||
		fail "add said: $stderr"
	# A person's task says nothing of the kind: its touches exempt it.
	run --separate-stderr person daicho add 'a person'"'"'s' --touches 'tests/**'
	[[ "$stderr" != *"ledger protects"* ]] || fail "$stderr"
	echo fixed >tests/t.sh
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	rejected_for 1 "changes tests/t.sh, which the ledger protects ('daicho config protect': 'tests/**')"
	rejected_for 1 "a person exempts the task: 'daicho edit 1 --touches tests/t.sh' (with the task's other globs: --touches replaces them)"
	# The same touches, given by a person, are the person's now.
	ok person daicho edit 1 --touches 'tests/**'
	[ "$(last_event 1 | jq -c '.detail.touches')" = '{"new":["tests/**"],"old":["tests/**"],"taken":true}' ] ||
		fail "$(last_event 1)"
	# Given again, they are already a person's: nothing to change.
	run --separate-stderr person daicho edit 1 --touches 'tests/**'
	[ "$status" -eq 2 ] || fail "a second person's edit: $status $stderr"
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
	# A task added with no identity but not at a terminal is no person's
	# either: the person's same touches take it over, as an agent's.
	daicho add 'unproven' --touches 'tests/**' >/dev/null 2>&1
	ok person daicho edit 3 --touches 'tests/**'
	[ "$(last_event 3 | jq -c '.detail.touches.taken')" = true ] || fail "$(last_event 3)"
}

@test "reopen of verified work: a person's, with a reason; the tasks after it wait again, and those that ran on it are in NEEDS YOU until it is done again" {
	daicho add base --done-when file:out.txt >/dev/null
	daicho add after --after 1 --done-when file:b.txt >/dev/null
	daicho add later --after 1 >/dev/null
	echo out >out.txt
	claim_report 1 w1
	sweep_says 1 0 0 0 0
	echo b >b.txt
	claim_report 2 w2
	snapshot_ledger
	refused 2 person daicho reopen 1
	refused 2 person daicho reopen 1 --reason ' '
	refused 6 daicho reopen 1 --as w1 --reason 'I say so'
	assert_ledger_unchanged
	on_pty daicho reopen 1 --reason 'the parser drops comments'
	[ "$status" -eq 0 ] && [ "$output" = 'reopened #1' ] || fail "$status: $output"
	assert_task 1 open - 0
	[ "$(sql "SELECT unmet_deps FROM tasks WHERE id IN (2, 3) ORDER BY id")" = $'1\n1' ]
	refused 4 daicho claim 3 --as w3
	[ "$(last_event 1 | jq -c .detail)" = '{"attempts":1,"from":"verified","ran":[2],"reason":"the parser drops comments"}' ] ||
		fail "$(last_event 1)"
	run --separate-stderr daicho log 1
	assert_output --partial 'reopened #1 base (it was verified): the parser drops comments; after it, #2 had already run on its work'
	# NEEDS YOU: #2 ran on it (the open #3 did not).
	ok daicho status --json
	jq -e '[.needs_you[] | select(.kind == "ran-on-reopened") | [.id, .reopened, .reason]]
		== [[2, 1, "the parser drops comments"]]' <<<"$output" >/dev/null || fail "$output"
	ok daicho status
	assert_output --partial "#2 after (reported) ran on #1's work, which a person reopened: 'the parser drops comments'; check it, or redo it once #1 is done again"
	# Done again: the item is gone and the tasks after it are ready.
	echo better >out.txt
	claim_report 1 w1
	SWEEP_OPTS='' run daicho sweep
	ok daicho status --json
	jq -e '[.needs_you[] | select(.kind == "ran-on-reopened")] == []' <<<"$output" >/dev/null || fail "$output"
	[ "$(sql "SELECT unmet_deps FROM tasks WHERE id = 3")" = 0 ]
	# A reopen of a failed task needs no reason, as before.
	refused 4 person daicho reopen 3
}

@test "protected paths: deleting or renaming a protected file is a change too" {
	echo 'true' >check.sh
	git add check.sh
	git commit -q -m check
	daicho add del --protect check.sh --done-when file:README >/dev/null
	daicho add ren --protect check.sh --done-when file:README >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	git rm -q check.sh
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	git checkout -q HEAD -- check.sh
	git mv check.sh other.sh
	[ "$(daicho claim 2 --as w2)" = 2 ]
	daicho report 2 --as w2 --commit "$(commit_work 2)"
	sweep_says 0 2 0 0 0
	rejected_for 1 "changes check.sh"
	rejected_for 2 "changes check.sh"
}

@test "the runner's report without a commit, in git, is rejected by the sweep with the reason" {
	daicho add t --max-attempts 1 --done-when file:README >/dev/null
	run --separate-stderr daicho run -j 1 -- true
	[ "$status" -eq 1 ] || fail "run: exit $status, $stderr"
	[ "$(tf 1 .state)" = failed ]
	[ "$(tf 1 .last_verdict.summary)" = "committed: no commit reported: in a git repository only committed work counts, and files left uncommitted are never seen (report with --commit REV)" ] ||
		fail "$(tf 1 .last_verdict.summary)"
}

@test "a claim with no base recorded cannot be judged: its report is rejected, saying to claim again" {
	daicho add t --done-when file:out.txt --protect test.sh >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	sql "UPDATE tasks SET claim_base = NULL WHERE id = 1" # as an old claim, or an unreadable trunk
	echo out >out.txt
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 0 1 0 0 0
	rejected_for 1 "no trunk commit was recorded when #1 was claimed"
	rejected_for 1 "release the task and claim it again"
}

@test "config trunk refuses a branch the repository does not have (exit 3), changing nothing" {
	snapshot_ledger
	refused 3 person daicho config trunk mian
	assert_equal "$stderr" "daicho: no branch 'mian' in the repository at $REPO (see 'git branch'; nothing was changed)"
	assert_ledger_unchanged
	ok person daicho config trunk main
}

@test "the trunk's merges of other tasks' accepted work are not this task's own work" {
	daicho add one --done-when file:one.txt >/dev/null
	daicho add two --done-when file:one.txt >/dev/null
	daicho add three --done-when file:three.txt >/dev/null
	[ "$(daicho claim 2 --as w2)" = 2 ] # w2 claims first, then waits
	echo one >one.txt
	claim_report 1 w1
	rm one.txt
	echo three >three.txt
	claim_report 3 w3
	rm three.txt
	sweep_says 2 0 0 0 0
	git merge -q --no-ff -m "merge #1" work/1
	git merge -q --no-ff -m "merge #3" work/3
	daicho report 2 --as w2 --commit main
	sweep_says 0 1 0 0 0
	rejected_for 2 "is on the trunk as it is now"
	# The same merges on a branch of #2's, with no change of its own.
	git branch -q w2 main~2
	git checkout -q w2
	git merge -q --no-ff -m "w2 merges #1" work/1
	git merge -q --no-ff -m "w2 merges #3" work/3
	git checkout -q main
	daicho report 2 --as w2 --commit w2
	sweep_says 0 1 0 0 0
	rejected_for 2 "brings nothing the trunk does not have now"
}

@test "a committed symlink whose text leads out is refused even when it points at nothing" {
	daicho add t --done-when 'cmd:cat deliv.md' >/dev/null
	ln -s ../../outside/deliv.md deliv.md
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	rejected_for 1 "in-commit: deliv.md is a symbolic link to ../../outside/deliv.md, outside the commit"
}

@test "a verification running while the checks are edited does not decide: the next pass runs the new checks" {
	unsandboxed
	person daicho add --no-baseline t --done-when "cmd:touch $TEST_ROOT/old-ran; sleep 1" >/dev/null
	claim_report 1 w1
	daicho sweep -j 1 >"$TEST_ROOT/pass" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do [ -e "$TEST_ROOT/old-ran" ] && break; sleep 0.05; done
	[ -e "$TEST_ROOT/old-ran" ] || fail "the old check never ran"
	ok person daicho edit 1 --done-when "cmd:touch $TEST_ROOT/new-ran"
	wait "$pid"
	[ "$(tf 1 .state)" = reported ] || fail "decided on the old checks: $(tf 1 .last_verdict.summary)"
	sweep_says 1 0 0 0 0
	[ -e "$TEST_ROOT/new-ran" ]
	[ "$(tf 1 .last_verdict.checks_version)" = 2 ]
}

@test "a rejection sent back to its owner renews its hold: the next sweep does not expire it" {
	daicho add t --done-when file:out.txt >/dev/null
	export DAICHO_NOW_MS=$T0
	[ "$(daicho claim 1 --as w1 --lease 4s --max-hold 6s)" = 1 ]
	c="$(commit_work 1)"
	DAICHO_NOW_MS=$((T0 + 5000)) daicho report 1 --as w1 --commit "$c"
	DAICHO_NOW_MS=$((T0 + 5500)) sweep_says 0 1 0 0 0
	assert_task 1 claimed w1 2
	DAICHO_NOW_MS=$((T0 + 7000)) sweep_says 0 0 0 0 0
	assert_task 1 claimed w1 2
}

@test "touches exempt a task from the ledger's protected list only when a person set them" {
	mkdir tests
	echo 'true' >tests/run.sh
	git add tests
	git commit -q -m tests
	ok person daicho config protect 'tests/**'
	# An agent adds itself a task that "touches" the protected tests.
	DAICHO_AGENT=w1 daicho add sneaky --touches 'tests/**' --done-when file:tests/run.sh >/dev/null
	echo 'exit 0' >tests/run.sh
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	rejected_for 1 "changes tests/run.sh, which the ledger protects"
	# A person sets the same touches: now they exempt it (and, as its
	# check passes before the work too, judges it on its commit alone).
	ok person daicho edit 1 --touches 'tests/**' --touches 'tests/*' --no-baseline
	daicho report 1 --as w1 --commit "$(commit_work 1)"
	sweep_says 1 0 0 0 0
}

@test "a check that runs the work's own code cannot rewrite a protected file for the check after it" {
	printf 'test -s out.md\n' >test.sh
	printf 'true\n' >build.sh
	git add test.sh build.sh
	git commit -q -m "test and build"
	daicho add t --done-when 'cmd:sh build.sh' --done-when 'cmd:sh test.sh' --protect test.sh --touches build.sh >/dev/null
	# The worker's build rewrites the test before it runs.
	printf "echo 'exit 0' >test.sh\\n" >build.sh
	claim_report 1 w1
	sweep_says 0 1 0 0 0
	rejected_for 1 "protected: the checks changed test.sh, which is protected ('test.sh'), while they ran"
	# The trace saw the write as well.
	[ "$(tf 1 '[.last_verdict.checks[] | select(.check == "inputs" and .passed == false)] | length')" = 1 ]
}

# claim_held_by PID START PLACE: task #1's verification claim, taken by
# process PID started at START (clock ticks since boot) in PLACE (host
# name and pid namespace: the token verify_new_token() makes), good for an
# hour.
claim_held_by() {
	sql "UPDATE tasks SET verify_token = '0123456789abcdef-$1.$2-$3', verify_expires_ms = $(($(date +%s%3N) + 3600000)) WHERE id = 1"
}

# here: this host and pid namespace, as a token names them.
here() {
	echo "$(hostname).$(readlink /proc/self/ns/pid | tr -dc 0-9)"
}

# started PID: when process PID started, as /proc/PID/stat says (field 22).
started_at() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

@test "a verification claim whose sweep died here is taken at once by the next sweep; a live sweep's, or one of another host or pid namespace, waits for its expiry" {
	daicho add t --done-when file:out.txt >/dev/null
	echo content >out.txt
	claim_report 1 w1
	# A live process here holds it (this shell): left alone.
	claim_held_by $$ "$(started_at $$)" "$(here)"
	sweep_says 0 0 0 0 0
	assert_task 1 reported w1 1
	# A process gone, of another host, or of another pid namespace of
	# this host (a container beside it): its pids are not ours to judge.
	sh -c 'exit 0' &
	local dead=$!
	wait "$dead"
	claim_held_by "$dead" 1 "elsewhere.example.$(readlink /proc/self/ns/pid | tr -dc 0-9)"
	sweep_says 0 0 0 0 0
	claim_held_by "$dead" 1 "$(hostname).1"
	sweep_says 0 0 0 0 0
	assert_task 1 reported w1 1
	# This shell's pid, but not its start: the taker died and its pid was
	# given to another process. Taken at once.
	claim_held_by $$ "$(($(started_at $$) + 1))" "$(here)"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
}

@test "a verification claim whose taker is gone from here (a sweep killed mid-verification) is taken at once" {
	daicho add t --done-when file:out.txt >/dev/null
	echo content >out.txt
	claim_report 1 w1
	sh -c 'exit 0' &
	local dead=$!
	wait "$dead"
	claim_held_by "$dead" 1 "$(here)"
	sweep_says 1 0 0 0 0
	assert_task 1 verified w1 1
}
