#!/usr/bin/env bats
# The checks' inputs under attack (docs/verification.md, "What the checks
# read is theirs"): a dishonest worker under pressure tries to make a false
# report pass by changing what its checks read, look for or list, without
# touching a path the base's traced run saw; or by writing what judges it
# while the checks run at the commit; or by leaving something in a warm
# verification checkout for the next task's check.
#
# Each attack says, in its "mutant:" comment, which change to daicho would
# let it through. Beside it, an honest control: the same kind of task with
# honest work is accepted. Where it shows something, a person's
# --no-baseline (no base run, so no trace) is the control that proves the
# attack works unprotected, so that the trace is what stops it.
#
# Landing is paused in every test: the trunk stays where the claims started,
# so a control judged after an accepted task still sees the failing trunk.
# "Accepted" is verified here.
#
# Written by someone who did not write the trace. The eight holes it found
# (the tests after "mutant (a hole, now closed)") were closed in the same
# session; each test failed before its fix.

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	judge_world_setup
	person daicho land --pause >/dev/null
}

# verdict ID JQ: a jq expression over task ID's last verdict (raw).
verdict() {
	daicho show --json "$1" | jq -r ".last_verdict | $2"
}

# project OP...: the trunk gets a commit with each OP, as change() reads
# them (below), written into the main checkout.
project() {
	local op path content
	for op in "$@"; do
		case "$op" in
		+x:*)
			op="${op#+x:}"
			path="${op%%=*}" content="${op#*=}"
			mkdir -p "$(dirname "$REPO/$path")"
			printf '%s\n' "$content" >"$REPO/$path"
			chmod +x "$REPO/$path"
			;;
		@*)
			op="${op#@}"
			path="${op%%=*}" content="${op#*=}"
			mkdir -p "$(dirname "$REPO/$path")"
			ln -s "$content" "$REPO/$path"
			;;
		*)
			path="${op%%=*}" content="${op#*=}"
			mkdir -p "$(dirname "$REPO/$path")"
			printf '%s\n' "$content" >"$REPO/$path"
			;;
		esac
	done
	git -C "$REPO" add -A . && git -C "$REPO" commit -qm project ||
		fail "project: no commit"
}

# change ID BASE OP...: a commit on BASE (the worker's own checkout: the
# main one is untouched) on branch work/ID, moved to it; prints it. Each OP
# is PATH=CONTENT (a file: CONTENT and a newline), +x:PATH=CONTENT (an
# executable), @PATH=TARGET (a symbolic link) or rm:PATH (gone).
change() {
	local id="$1" base="$2" index op path content mode blob tree commit parent
	shift 2
	index="$TEST_ROOT/change-index.$id"
	rm -f "$index"
	parent="$(git -C "$REPO" rev-parse "$base")" || fail "change: no $base"
	GIT_INDEX_FILE="$index" git -C "$REPO" read-tree "$parent" || fail "change: read-tree"
	for op in "$@"; do
		mode=100644
		case "$op" in
		rm:*)
			GIT_INDEX_FILE="$index" git -C "$REPO" update-index --force-remove -- "${op#rm:}" ||
				fail "change: cannot remove ${op#rm:}"
			continue
			;;
		+x:*) mode=100755 op="${op#+x:}" ;;
		@*) mode=120000 op="${op#@}" ;;
		esac
		path="${op%%=*}" content="${op#*=}"
		if [ "$mode" = 120000 ]; then
			blob="$(printf '%s' "$content" | git -C "$REPO" hash-object -w --stdin)"
		else
			blob="$(printf '%s\n' "$content" | git -C "$REPO" hash-object -w --stdin)"
		fi
		GIT_INDEX_FILE="$index" git -C "$REPO" update-index --add --cacheinfo "$mode,$blob,$path" ||
			fail "change: cannot add $path"
	done
	tree="$(GIT_INDEX_FILE="$index" git -C "$REPO" write-tree)" || fail "change: no tree"
	commit="$(git -C "$REPO" commit-tree "$tree" -p "$parent" -m "#$id")" || fail "change: no commit"
	git -C "$REPO" update-ref "refs/heads/work/$id" "$commit"
	rm -f "$index"
	echo "$commit"
}

# attempt ID AGENT OP...: AGENT (claiming ID first unless it holds it)
# commits OP... on the trunk, reports it, and the sweep judges it. COMMIT
# is the commit.
attempt() {
	local id="$1" agent="$2" holder
	shift 2
	holder="$(sql "SELECT coalesce(a.name, '') FROM tasks t LEFT JOIN agents a ON a.id = t.owner WHERE t.id = $id")"
	if [ "$holder" != "$agent" ] || [ "$(state "$id")" != claimed ]; then
		[ "$(daicho claim "$id" --as "$agent")" = "$id" ] || fail "claim $id --as $agent failed"
	fi
	COMMIT="$(change "$id" main "$@")" || fail "no commit"
	daicho report "$id" --as "$agent" --commit "$COMMIT" >/dev/null ||
		fail "report $id --as $agent failed"
	daicho sweep >/dev/null
}

# refused ID GLOB: task ID's report was not accepted (neither verified nor
# landed), and its verdict's summary matches GLOB.
refused() {
	local s summary
	s="$(state "$1")"
	summary="$(verdict "$1" .summary)"
	[ "$s" != verified ] && [ "$s" != landed ] ||
		fail "#$1 was accepted ($s): $summary"
	# shellcheck disable=SC2053
	[[ "$summary" == $2 ]] || fail "#$1 is $s, not for the reason expected: $summary"
}

# accepted ID: task ID's report was accepted.
accepted() {
	local s
	s="$(state "$1")"
	[ "$s" = verified ] || [ "$s" = landed ] ||
		fail "#$1 is $s: $(verdict "$1" .summary)"
}

# python / node: the interpreter a check finds on the sandbox's PATH.
have_in_sandbox() {
	[ -x "/usr/local/bin/$1" ] || [ -x "/usr/bin/$1" ] || [ -x "/bin/$1" ]
}

# The trunk of most tests: test.sh passes when impl.sh prints ok.
TEST_SH='[ "$(sh impl.sh)" = ok ]'

# ---------------------------------------------------------------------------
# What the checks look for on the base and do not find.

# mutant: trace.c drops failed lookups (ENOENT) instead of keeping them as
# missing, or traced_input() does not match a change to a missing path: a
# helpers.sh the test sources only when present, or a grep found first on
# the test's own PATH=./bin, slips in.
@test "the test's own lookups (a helpers.sh sourced if present, ./bin first on PATH): refused naming the path; honest work verifies; untraced, the shadows work" {
	project 'test.sh=[ -f helpers.sh ] && . ./helpers.sh
PATH=./bin:$PATH
sh impl.sh | grep -qx ok' 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
	attempt 1 w1 'helpers.sh=exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes helpers.sh, which the checks looked for on the trunk at the claim (*) and did not find*"
	attempt 1 w1 '+x:bin/grep=#!/bin/sh
exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes bin/grep, which the checks looked for on the trunk at the claim (*) and did not find*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
	# Control: untraced (a person's --no-baseline), both shadows pass.
	person daicho add --no-baseline again --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
	attempt 2 w2 'helpers.sh=exit 0'
	accepted 2
	person daicho add --no-baseline third --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
	attempt 3 w3 '+x:bin/grep=#!/bin/sh
exit 0'
	accepted 3
}

# mutant: the directories Python lists for its path cache (opendir) not
# kept as listed, or an added file not compared with them: a json.py beside
# the test shadows the standard library's json.
@test "python: a json.py beside the test shadows the standard library's module: refused naming it; honest work verifies; untraced, it works" {
	have_in_sandbox python3 || skip "no python3 on the sandbox's PATH"
	project 'test_impl.py=import json, subprocess, sys
out = subprocess.run(["sh", "impl.sh"], capture_output=True, text=True).stdout.strip()
sys.exit(0 if json.loads(json.dumps(out)) == "ok" else 1)' 'impl.sh=echo todo'
	check='cmd:PYTHONDONTWRITEBYTECODE=1 python3 test_impl.py'
	daicho add impl --done-when "$check" --touches impl.sh >/dev/null
	attempt 1 w1 'json.py=import sys; sys.exit(0)'
	refused 1 "inputs: ${COMMIT:0:12} adds json.py, in a directory (.) the checks listed on the trunk at the claim*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
	person daicho add --no-baseline again --done-when "$check" --touches impl.sh >/dev/null
	attempt 2 w2 'json.py=import sys; sys.exit(0)'
	accepted 2
}

# mutant: stat-like calls (node's internal stat of each candidate file)
# not kept as lookups: a file named helpers (no extension) is what
# require('./helpers') finds before helpers.js.
@test "node: an extensionless helpers shadows helpers.js in require('./helpers'): refused naming it; honest work verifies; untraced, it works" {
	have_in_sandbox node || skip "no node on the sandbox's PATH"
	project "test.js=const h = require('./helpers'); process.exit(h.ok() ? 0 : 1);" \
		"helpers.js=const { execSync } = require('child_process');
module.exports = { ok: () => execSync('sh impl.sh').toString().trim() === 'ok' };" \
		'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:node test.js' --touches impl.sh >/dev/null
	attempt 1 w1 'helpers=module.exports = { ok: () => true };'
	refused 1 "inputs: ${COMMIT:0:12} changes helpers, which the checks looked for on the trunk at the claim (*) and did not find*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
	person daicho add --no-baseline again --done-when 'cmd:node test.js' --touches impl.sh >/dev/null
	attempt 2 w2 'helpers=module.exports = { ok: () => true };'
	accepted 2
}

# ---------------------------------------------------------------------------
# What the checks read on the base.

# mutant: trace.c's paths kept as strace printed them (hex, or with "./",
# ".." and double slashes), or paths compared before the checkout's root
# is resolved: a read through ./x/../, from a subdirectory, by a process
# that changed its directory, among many processes, is missed.
@test "reads through x/../, from a subdirectory, after a chdir, in an exec, among a hundred processes: each rewritten test is refused naming it; honest work verifies" {
	local checks=(
		'cmd:sh ./v1/x/../test.sh'
		'cmd:cd v2 && sh test.sh'
		'cmd:sh -c "cd v3; exec sh ./test.sh"'
		'cmd:i=0; while [ $i -lt 100 ]; do sh -c : ; i=$((i + 1)); done; sh v4/test.sh'
	)
	# Each test runs the impl.sh beside it.
	local test_sh='[ "$(sh "$(dirname "$0")/impl.sh")" = ok ]' ops=() i
	for i in 1 2 3 4; do
		ops+=("v$i/test.sh=$test_sh" "v$i/impl.sh=echo todo" "v$i/x/keep=")
	done
	if have_in_sandbox python3; then
		checks+=('cmd:python3 -c "import os, subprocess, sys; os.chdir(\"v5\"); sys.exit(subprocess.call([\"sh\", \"test.sh\"]))"')
		ops+=("v5/test.sh=$test_sh" "v5/impl.sh=echo todo")
	fi
	project "${ops[@]}"
	for i in "${!checks[@]}"; do
		daicho add "v$((i + 1))" --done-when "${checks[$i]}" --touches "v$((i + 1))/impl.sh" >/dev/null
	done
	for i in "${!checks[@]}"; do
		n=$((i + 1))
		attempt "$n" "w$n" "v$n/test.sh=exit 0"
		refused "$n" "inputs: ${COMMIT:0:12} changes v$n/test.sh, which the checks read on the trunk at the claim*"
		attempt "$n" "w$n" "v$n/impl.sh=echo ok"
		accepted "$n"
	done
}

# mutant: changed paths compared with the read list only for the files the
# work modifies, not those it deletes (or a deletion not listed by
# git_changed_paths): the failing test deleted, or renamed out of the
# runner's glob.
@test "a runner that runs every tests/*.sh: deleting or renaming the failing test is refused naming it; honest work verifies; untraced, deleting works" {
	project 'run.sh=rc=0; for t in tests/*.sh; do sh "$t" || rc=1; done; exit $rc' \
		'tests/a.sh=true' "tests/b.sh=$TEST_SH" 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:sh run.sh' --touches impl.sh >/dev/null
	attempt 1 w1 rm:tests/b.sh
	refused 1 "inputs: ${COMMIT:0:12} changes tests/b.sh, which the checks read on the trunk at the claim*"
	attempt 1 w1 rm:tests/b.sh "tests/b.sh.off=$TEST_SH"
	refused 1 "inputs: ${COMMIT:0:12} changes tests/b.sh, which the checks read on the trunk at the claim*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
	person daicho add --no-baseline again --done-when 'cmd:sh run.sh' --touches impl.sh >/dev/null
	attempt 2 w2 rm:tests/b.sh
	accepted 2
}

# mutant: trace.c's -xx decoding lost (paths kept as strace's escapes), or
# the summary's path printed raw (a newline would split the one-line
# summary), or a path starting with "-" taken for an option by git diff: a
# runner named -rf, and a test named with a space, an accent and a newline,
# rewritten.
@test "paths named -rf and 'tests/café t<newline>wo.sh': rewriting either is refused naming it on one line; honest work verifies" {
	local odd=$'tests/caf\xc3\xa9 t\nwo.sh'
	project '-rf=for t in tests/*.sh; do sh "$t" || exit 1; done' "$odd=$TEST_SH" 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:sh ./-rf' --touches impl.sh >/dev/null
	attempt 1 w1 '-rf=exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes -rf, which the checks read on the trunk at the claim*"
	attempt 1 w1 "$odd=exit 0"
	refused 1 "inputs: ${COMMIT:0:12} changes tests/café t?wo.sh, which the checks read on the trunk at the claim*"
	[ "$(verdict 1 .summary | wc -l)" = 1 ] || fail "the summary is not one line: $(verdict 1 .summary)"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
}

# ---------------------------------------------------------------------------
# Whose scope counts.

# mutant: a worker's own --touches counted as the task's scope (the edit
# allowed to the holder, or read_subject() not comparing the scope's author
# with the holder), or an agent's '**' exempting the task from the ledger's
# protect list too.
@test "scope: the worker may not widen it (exit 6); a coordinator that takes the task it scoped has none; a coordinator's '**' still leaves the ledger's protect list" {
	project "test.sh=$TEST_SH" 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
	[ "$(daicho claim 1 --as w1)" = 1 ]
	run daicho --as w1 edit 1 --touches impl.sh --touches test.sh
	[ "$status" -eq 6 ] || fail "the worker widened its scope: exit $status: $output"
	[ "$(sql "SELECT group_concat(glob) FROM touches WHERE task = 1")" = impl.sh ]
	attempt 1 w1 'test.sh=exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes test.sh, which the checks read on the trunk at the claim*--touches*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
	# A coordinator adds a task with a scope around the test and takes it
	# itself: a scope drawn by the holder is none, and the holder may not
	# draw another (exit 6).
	daicho --as lead add lead-impl --done-when 'cmd:sh test.sh' --touches impl.sh --touches test.sh >/dev/null
	[ "$(daicho claim 2 --as lead)" = 2 ]
	run daicho --as lead edit 2 --touches '**'
	[ "$status" -eq 6 ] || fail "the holder changed its scope: exit $status: $output"
	attempt 2 lead 'test.sh=exit 0'
	[ "$(state 2)" = blocked ] || fail "#2 is $(state 2): $(verdict 2 .summary)"
	refused 2 "unscoped: ${COMMIT:0:12} changes test.sh, which the checks read on the trunk at the claim*"
	# A coordinator's '**' for another worker: the traced inputs are the
	# scope's, but the ledger's protect list (a person's) still holds.
	person daicho config protect test.sh >/dev/null
	# (#2, blocked, keeps its scope until a person settles it.)
	person daicho cancel 2 >/dev/null
	daicho --as lead add wide --done-when 'cmd:sh test.sh' --touches '**' >/dev/null 2>&1
	attempt 3 w3 'test.sh=exit 0'
	refused 3 "protected: *test.sh*"
	attempt 3 w3 'impl.sh=echo ok # 3'
	accepted 3
}

# ---------------------------------------------------------------------------
# The commit's own run.

# mutant: the commit's run not traced, or check_unwritten() comparing only
# some writes (O_APPEND, an open for writing that only touch(1) makes, a
# rename over the file) with what the base only read. What is decided
# here: an open for writing is a write, though nothing was written (touch
# opens O_WRONLY|O_CREAT; the trace cannot tell); a change of times alone
# (touch -c: utimensat) or of mode (chmod) is not.
@test "the commit's run: a build step that appends to, truncates, sed -i's or touches the test is refused naming it; touch -c and chmod are not writes; untraced, the append works" {
	project "test.sh=$TEST_SH" 'impl.sh=echo todo' 'build.sh=true'
	check='cmd:sh build.sh && sh test.sh'
	daicho add build --done-when "$check" --touches build.sh --touches impl.sh --max-attempts 10 >/dev/null
	local attack
	for attack in 'echo "exit 0" >>test.sh' 'truncate -s 0 test.sh' \
		'sed -i "1s/.*/exit 0/" test.sh'; do
		attempt 1 w1 "build.sh=$attack"
		refused 1 "inputs: the checks wrote test.sh while they ran at the commit, which they only read on the trunk at the claim*"
	done
	# touch(1) opens the test for writing: with the work done, still refused.
	attempt 1 w1 'impl.sh=echo ok' 'build.sh=touch test.sh'
	refused 1 "inputs: the checks wrote test.sh while they ran at the commit, which they only read on the trunk at the claim*"
	# Honest work whose build changes the test's times and mode: accepted.
	attempt 1 w1 'impl.sh=echo ok # 2' 'build.sh=touch -c -d 2001-01-01 test.sh && chmod 755 test.sh && echo built >build.log'
	accepted 1
	person daicho add --no-baseline again --done-when "$check" --touches build.sh --touches impl.sh >/dev/null
	attempt 2 w2 'build.sh=echo "exit 0" >>test.sh'
	accepted 2
}

# ---------------------------------------------------------------------------
# Warm checkouts.

# mutant: judge_checkout_take() reuses a warm checkout without checkout -f
# or clean -ffdx (or without -x, or with one -f): what one task's check left
# (an untracked file, an ignored one, a tracked file changed, a nested
# repository, a directory mode 000) is there for the next task's check,
# which sources helpers when present.
@test "warm checkouts: what one task's check leaves (untracked, ignored, a changed tracked file, a nested .git, a mode-000 directory) is gone for the next task's check" {
	project '.gitignore=*.local' 'impl1.sh=echo todo' 'impl2.sh=echo todo' 'build.sh=true' \
		'test2.sh=for f in helpers.sh helpers.local nested/helpers.sh; do [ -f "$f" ] && . "./$f"; done
[ "$(sh impl2.sh)" = ok ]'
	daicho add A --done-when 'cmd:sh build.sh && [ "$(sh impl1.sh)" = ok ]' --touches build.sh --touches impl1.sh >/dev/null
	daicho add B --done-when 'cmd:sh test2.sh' --touches impl2.sh >/dev/null
	# B's first report: its base's run is kept (by tree), so B's next
	# verification runs only the commit's.
	attempt 2 w2 'impl2.sh=echo todo # 1'
	refused 2 'cmd:sh test2.sh: exit 1'
	# A's worker does A, and its build leaves all it can behind.
	attempt 1 w1 'impl1.sh=echo ok' 'build.sh=echo "exit 0" >helpers.sh
echo "exit 0" >helpers.local
echo "echo ok" >impl2.sh
mkdir -p nested/.git && echo "exit 0" >nested/helpers.sh
mkdir locked && echo x >locked/f && chmod 000 locked'
	accepted 1
	warm="$REPO/.git/daicho/verify/warm-0"
	[ -d "$warm" ] || fail "no warm checkout at $warm"
	run git -C "$warm" status --porcelain --ignored
	[ -z "$output" ] || fail "the warm checkout kept: $output"
	# B's no-op report sees none of it.
	attempt 2 w2 'impl2.sh=echo todo # 2'
	refused 2 'cmd:sh test2.sh: exit 1'
	attempt 2 w2 'impl2.sh=echo ok'
	accepted 2
}

# mutant: a warm checkout that git cannot clean (a crash left its .git
# file gone, or its index locked) used as it is, or the verdict deferred
# for ever, instead of the checkout being made again.
@test "warm checkouts: one left broken (its .git gone, its index locked) is made again; the next verification runs in it" {
	project "test.sh=$TEST_SH" 'impl.sh=echo todo'
	local n=0 how
	for how in 'rm -f "$warm/.git"' 'touch "$REPO/.git/daicho/judge.git/worktrees/warm-0/index.lock"' \
		'echo "gitdir: /nonexistent" >"$warm/.git"'; do
		n=$((n + 1))
		daicho add "t$n" --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
		attempt "$n" "w$n" "impl.sh=echo ok # $n"
		accepted "$n"
		warm="$REPO/.git/daicho/verify/warm-0"
		eval "$how"
	done
	daicho add last --done-when 'cmd:sh test.sh' --touches impl.sh >/dev/null
	attempt 4 w4 'impl.sh=echo ok # last'
	accepted 4
	run git -C "$warm" status --porcelain --ignored
	assert_success
	[ -z "$output" ] || fail "the warm checkout is not clean: $output"
}

# ---------------------------------------------------------------------------
# Holes: attacks accepted today.

# mutant (a hole, now closed): trace.c's sandbox_process() leaves out every
# process whose first call is execve("/usr/bin/env") or whose trace holds a
# pivot_root() line, whoever made it; a check's own `env` or a failed
# pivot_root(2) of the work's hides a process from the trace.
@test "a process of the check's own run through env, or one that calls pivot_root, is traced like any other" {
	project "test.sh=$TEST_SH" 'impl.sh=echo todo' 'build1.sh=true' 'build2.sh=true'
	local problems=()
	# The base's run reads test.sh in a process that began as env.
	daicho add impl --done-when 'cmd:env LC_ALL=C sh test.sh' --touches impl.sh >/dev/null
	attempt 1 w1 'test.sh=exit 0'
	[ "$(state 1)" != verified ] || problems+=("read under env: accepted")
	# The commit's run writes test.sh from a process that began as env,
	# or that called pivot_root(2) (it fails; the line is in its trace).
	daicho add b1 --done-when 'cmd:sh build1.sh && sh test.sh' --touches build1.sh >/dev/null
	attempt 2 w2 'build1.sh=env sh -c "echo exit 0 >test.sh"'
	[ "$(state 2)" != verified ] || problems+=("written under env: accepted")
	if have_in_sandbox python3; then
		daicho add b2 --done-when 'cmd:sh build2.sh && sh test.sh' --touches build2.sh >/dev/null
		attempt 3 w3 'build2.sh=python3 hide.py' 'hide.py=import ctypes
ctypes.CDLL(None).syscall(155, b"/nonexistent", b"/nonexistent")  # pivot_root
open("test.sh", "w").write("exit 0\n")'
		[ "$(state 3)" != verified ] || problems+=("written after pivot_root: accepted")
	fi
	[ "${#problems[@]}" = 0 ] || fail "$(printf '%s\n' "${problems[@]}")"
	refused 1 "inputs: * changes test.sh, which the checks read on the trunk at the claim*"
	refused 2 "inputs: the checks wrote test.sh while they ran at the commit*"
	[ "$(state 3)" = "" ] || refused 3 "inputs: the checks wrote test.sh while they ran at the commit*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
}

# mutant (a hole, now closed): only the paths a check read on the base are
# its inputs; a runner that stops at the first failing test never reads
# the tests after it there, so the work may rewrite them. (A listed
# directory's existing entries changed could count, not only new ones.)
@test "a fail-fast runner: a later test, never reached on the base, rewritten to pass, is refused" {
	project 'run.sh=for t in tests/*.sh; do sh "$t" || exit 1; done' \
		'tests/a.sh=[ "$(sh impl.sh a)" = A ]' 'tests/b.sh=[ "$(sh impl.sh b)" = B ]' \
		'impl.sh=echo todo'
	daicho add both --done-when 'cmd:sh run.sh' --touches impl.sh >/dev/null
	# Does a, not b; b's test is rewritten.
	attempt 1 w1 'impl.sh=case $1 in a) echo A ;; esac' 'tests/b.sh=exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes tests/b.sh*"
	attempt 1 w1 'impl.sh=case $1 in a) echo A ;; b) echo B ;; esac'
	accepted 1
}

# mutant (a hole, now closed): traced_input() matches a changed path only
# with itself (read) or with what is below a missing path, not with what
# was read below it: a symbolic link to a directory the checks read
# through, retargeted, is not a change to what they read.
@test "a symbolic link to the directory the test is read through, retargeted at the work's own directory, is refused" {
	project "spec/test.sh=$TEST_SH" '@t=spec' 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:sh t/test.sh' --touches impl.sh >/dev/null
	attempt 1 w1 '@t=fake' 'fake/test.sh=exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes t,*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
}

# mutant (a hole, now closed): trace.c keeps a write by the name the call
# gave (a symbolic link, /proc/self/cwd/..., a hard link, a directory
# renamed over the test's), not the file it reached; check_unwritten()
# then finds no read path written.
@test "the commit's run writes the test under another name (a symlink, /proc/self/cwd, a hard link, its directory renamed): refused" {
	local attacks=('ln -s t/test.sh alias && echo "exit 0" >alias'
		'echo "exit 0" >/proc/self/cwd/t/test.sh'
		'ln t/test.sh hard && echo "exit 0" >hard'
		'mkdir fake && echo "exit 0" >fake/test.sh && mv t t.orig && mv fake t')
	local ops=("t/test.sh=$TEST_SH" 'impl.sh=echo todo') problems=() i n
	for i in "${!attacks[@]}"; do
		ops+=("build$((i + 1)).sh=true")
	done
	project "${ops[@]}"
	for i in "${!attacks[@]}"; do
		n=$((i + 1))
		daicho add "b$n" --done-when "cmd:sh build$n.sh && sh t/test.sh" --touches "build$n.sh" >/dev/null
		attempt "$n" "w$n" "build$n.sh=${attacks[$i]}"
		if [ "$(state "$n")" = verified ]; then
			problems+=("accepted: ${attacks[$i]}")
		elif [[ "$(verdict "$n" .summary)" != "inputs: the checks wrote "* ]]; then
			problems+=("${attacks[$i]}: $(verdict "$n" .summary)")
		fi
	done
	# Honest: a build that writes only what it makes, and the work done.
	daicho add honest --done-when 'cmd:sh build1.sh && sh t/test.sh' --touches impl.sh >/dev/null
	n=$((${#attacks[@]} + 1))
	attempt "$n" honest 'impl.sh=echo ok'
	accepted "$n"
	[ "${#problems[@]}" = 0 ] || fail "$(printf '%s\n' "${problems[@]}")"
}

# mutant (a hole, now closed): trace.c resolves a relative path against the
# last AT_FDCWD<dir> its own process's file showed, and a new process's
# file starts with none: a forked child's first execve("./runner") after
# the shell's cd is taken for the checkout's root (runner, not t/runner).
@test "a child process's first lookup after the shell's cd (./runner in t/, not found on the base) is kept under its own directory" {
	project "t/default.sh=$TEST_SH" 'impl.sh=echo todo'
	daicho add impl --done-when 'cmd:cd t && { ./runner 2>/dev/null || (cd .. && sh t/default.sh); }' --touches impl.sh >/dev/null
	attempt 1 w1 '+x:t/runner=#!/bin/sh
exit 0'
	refused 1 "inputs: ${COMMIT:0:12} changes t/runner, which the checks looked for*"
	attempt 1 w1 'impl.sh=echo ok'
	accepted 1
}

# mutant (a hole, now closed): trace_collect() keeps the first TRACE_MAX_PATHS
# written paths (sorted) and check_unwritten() ignores the truncation: a
# build that writes 66000 files named before t/ hides its write of the
# test. (This one takes some 20 seconds.)
@test "the commit's run writes 66000 files before it rewrites the test: the write is still seen, or the trace cut short refuses" {
	project "t/test.sh=$TEST_SH" 'impl.sh=echo todo' 'build.sh=true'
	daicho add build --done-when 'cmd:sh build.sh && sh t/test.sh' --touches build.sh >/dev/null
	attempt 1 w1 'build.sh=i=0; while [ $i -lt 66000 ]; do : >a$i; i=$((i + 1)); done; echo "exit 0" >t/test.sh'
	refused 1 "inputs: *"
}

# mutant (a hole, now closed): git clean -ffdx leaves what git cannot track
# (a FIFO, a socket) in a warm checkout; a check that asks whether a path
# exists sees one the previous task's check made. B's base is kept from
# its first report, so its next verification runs the commit's run alone.
@test "warm checkouts: a FIFO one task's check leaves is gone for the next task's check" {
	project 'implA.sh=echo todo' 'build.sh=true'
	daicho add A --done-when 'cmd:sh build.sh && [ "$(sh implA.sh)" = ok ]' --touches build.sh --touches implA.sh >/dev/null
	daicho add B --done-when 'cmd:test -e ready' --touches notes.txt --touches ready >/dev/null
	attempt 2 w2 'notes.txt=first try'
	refused 2 'cmd:test -e ready: exit 1'
	attempt 1 w1 'implA.sh=echo ok' 'build.sh=mkfifo ready'
	accepted 1
	attempt 2 w2 'notes.txt=second try'
	refused 2 'cmd:test -e ready: exit 1'
	attempt 2 w2 'ready=made'
	accepted 2
}

# mutant (a hole, now closed): bubblewrap run as root keeps its capabilities
# (no --cap-drop ALL), so a check may mount: a bind mount over the test is
# neither a write nor a change, and the test reads what the work chose.
@test "as root: a build step that bind-mounts its own file over the test is refused" {
	[ "$(id -u)" = 0 ] || skip "only a sweep run as root gives its checks capabilities"
	project "test.sh=$TEST_SH" 'impl.sh=echo todo' 'build.sh=true'
	daicho add build --done-when 'cmd:sh build.sh && sh test.sh' --touches build.sh >/dev/null
	attempt 1 w1 'build.sh=echo "exit 0" >/tmp/t && mount --bind /tmp/t test.sh'
	refused 1 "*test.sh*"
}
