#!/usr/bin/env bats
# Check inputs protected automatically (issue 29, item 3): the checks run
# traced on the claim's base, and a report that changes what they read,
# looked for or listed there, outside the task's scope (--touches set by a
# person or by another agent than the worker), is refused with the path
# named; a run at the commit that writes what they only read is refused
# too. Nothing is protected by hand in these tests unless a test says so.
#
# Each attack has its mutant (what would let it through) and an honest
# control beside it.

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	judge_world_setup
}

# verdict ID JQ: a jq expression over task ID's last verdict (raw).
verdict() {
	daicho show --json "$1" | jq -r ".last_verdict | $2"
}

# project_make: the trunk has a Makefile whose test runs test.sh, which
# passes when impl.sh prints ok.
project_make() {
	printf 'test:\n\tsh test.sh\n' >"$REPO/Makefile"
	printf '[ "$(sh impl.sh)" = ok ]\n' >"$REPO/test.sh"
	printf 'echo todo\n' >"$REPO/impl.sh"
	git -C "$REPO" add Makefile test.sh impl.sh
	git -C "$REPO" commit -qm 'the project'
}

# mutant: directories the checks list (opendir) not recorded, or a file the
# work adds to one not compared with them: make finds GNUmakefile first.
@test "README's own example beaten by a GNUmakefile (make lists the directory): refused naming GNUmakefile; the honest work beside it verifies" {
	project_make
	daicho add impl --done-when 'cmd:make test' --protect Makefile --touches impl.sh >/dev/null
	daicho claim 1 --as w1 >/dev/null
	work 1 impl.sh 'echo todo' >/dev/null
	c="$(work 1 GNUmakefile "$(printf 'test:\n\ttrue')" work/1)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = claimed ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
	[[ "$(verdict 1 .summary)" == "inputs: ${c:0:12} adds GNUmakefile, in a directory (.) the checks listed on the trunk at the claim"* ]] ||
		fail "summary: $(verdict 1 .summary)"
	# Honest: impl.sh, inside the scope a person drew.
	c="$(work 1 impl.sh 'echo ok' main)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "honest work: $(state 1): $(verdict 1 .summary)"
	[ "$(verdict 1 '.checks[] | select(.check == "inputs") | .passed')" = true ]
	# Control: untraced (a person's --no-baseline), the attack works.
	person daicho add --no-baseline again --done-when 'cmd:make test' --protect Makefile --touches impl.sh >/dev/null
	daicho claim 2 --as w2 >/dev/null
	c="$(work 2 GNUmakefile "$(printf 'test:\n\ttrue')")"
	c="$(work 2 impl.sh 'echo todo # 2' work/2)"
	daicho report 2 --as w2 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 2)" = landed ] || fail "control: the GNUmakefile trick did not work untraced: $(state 2): $(verdict 2 .summary)"
}

# mutant: paths looked for and not found (ENOENT) not recorded, or a change
# below one not matched against it: python's own unittest is shadowed.
@test "a unittest/ package at the root shadows the standard library's runner, with tests/** protected: refused naming it; honest work verifies" {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p "$REPO/tests"
	printf 'import unittest\nfrom calc import add\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n' >"$REPO/tests/test_calc.py"
	printf 'def add(a, b):\n    return 0\n' >"$REPO/calc.py"
	git -C "$REPO" add tests calc.py && git -C "$REPO" commit -qm calc
	person daicho config protect 'tests/**' >/dev/null
	daicho add 'fix add' --done-when 'cmd:PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests' --touches calc.py >/dev/null
	daicho claim 1 --as w1 >/dev/null
	c="$(work 1 unittest/__init__.py 'import sys; sys.exit(0)')"
	c="$(work 1 unittest/__main__.py 'import sys; sys.exit(0)' work/1)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = claimed ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
	# Python lists the directory it imports from (its path cache).
	[[ "$(verdict 1 .summary)" == "inputs: ${c:0:12} adds unittest/__"*".py, in a directory (.) the checks listed on the trunk at the claim"* ]] ||
		fail "summary: $(verdict 1 .summary)"
	c="$(work 1 calc.py "$(printf 'def add(a, b):\n    return a + b')" main)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "honest work: $(state 1): $(verdict 1 .summary)"
	# Control: untraced (a person's --no-baseline), the shadow works.
	person daicho add --no-baseline again --done-when 'cmd:PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s tests' --touches calc.py >/dev/null
	daicho claim 2 --as w2 >/dev/null
	c="$(work 2 unittest/__init__.py 'import sys; sys.exit(0)')"
	c="$(work 2 unittest/__main__.py 'import sys; sys.exit(0)' work/2)"
	c="$(work 2 calc.py "$(printf 'def add(a, b):\n    return 0 # 2')" work/2)"
	daicho report 2 --as w2 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 2)" = landed ] || fail "control: the shadow did not work untraced: $(state 2): $(verdict 2 .summary)"
}

# mutant: the run at the commit not traced (or its writes not compared with
# what the base's run only read): the test rewritten and put back passes.
@test "a build step of the work that rewrites the test and puts it back before the check ends is refused: the trace saw the write" {
	printf 'grep -qx ok out.txt\n' >"$REPO/test.sh"
	printf 'true\n' >"$REPO/build.sh"
	git -C "$REPO" add test.sh build.sh && git -C "$REPO" commit -qm project
	daicho add build --done-when 'cmd:sh build.sh && sh test.sh' --protect test.sh --touches build.sh --touches out.txt >/dev/null
	daicho claim 1 --as w1 >/dev/null
	# The build swaps in a test that puts the real one back and passes:
	# once the check ends, the checkout is as committed.
	build='cp test.sh /tmp/t.keep
printf "cp /tmp/t.keep test.sh; exit 0\n" >test.sh'
	work 1 out.txt bad >/dev/null
	c="$(work 1 build.sh "$build" work/1)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = claimed ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
	[ "$(verdict 1 .summary)" = "inputs: the checks wrote test.sh while they ran at the commit, which they only read on the trunk at the claim: the work may not change what judges it, even for a while" ] ||
		fail "summary: $(verdict 1 .summary)"
	# Honest: a build that writes only what it makes.
	c="$(work 1 out.txt ok main)"
	c="$(work 1 build.sh 'echo built >build.log' work/1)"
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "honest work: $(state 1): $(verdict 1 .summary)"
}

# mutant: unscoped work rejected back to its worker (who cannot fix a task
# without a scope), or verified.
@test "a task with no scope whose work changes what its checks read waits for a person (NEEDS YOU), who draws the scope: then it verifies" {
	project_make
	daicho add impl --done-when 'cmd:make test' >/dev/null
	c="$(claim_work 1 w1 impl.sh 'echo ok')"
	daicho sweep >/dev/null
	[ "$(state 1)" = blocked ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
	[[ "$(verdict 1 .summary)" == "unscoped: ${c:0:12} changes impl.sh, which the checks read on the trunk at the claim"*"'daicho edit 1 --touches ...' says what the work may change, then 'daicho unblock 1'"* ]] ||
		fail "summary: $(verdict 1 .summary)"
	[ "$(sql "SELECT attempts FROM tasks WHERE id = 1")" = 1 ] # not the worker's attempt
	run daicho status
	assert_output --partial "#1's work changes what its checks read, and it has no scope (held by w1)"
	assert_output --partial "daicho edit 1 --touches ..."
	# The person draws the scope; the worker reports again.
	ok person daicho edit 1 --touches impl.sh
	ok person daicho unblock 1
	[ "$(state 1)" = claimed ]
	daicho report 1 --as w1 --commit "$c"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
}

# mutant: touches set by the worker itself counted as a scope (it would draw
# its own around the test).
@test "a scope counts when a person or the agent that added the task drew it, not when the worker drew its own" {
	project_make
	# A coordinator agent adds the task with its scope; w1 does it.
	daicho --as lead add impl --done-when 'cmd:make test' --touches impl.sh >/dev/null
	claim_work 1 w1 impl.sh 'echo ok' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "coordinator's scope: #1 is $(state 1): $(verdict 1 .summary)"
	# w2 adds its own task, scope and all, around the test it rewrites.
	daicho --as w2 add fix --done-when 'cmd:make test' --touches test.sh >/dev/null
	claim_work 2 w2 test.sh 'exit 0' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 2)" = blocked ] || fail "#2 is $(state 2): $(verdict 2 .summary)"
	[[ "$(verdict 2 .summary)" == "unscoped: "*" changes test.sh, which the checks read on the trunk at the claim"* ]] ||
		fail "summary: $(verdict 2 .summary)"
}

# mutant: the base's trace not kept (every verification traces again), or
# kept without its inputs (nothing to compare with).
@test "what the checks read on a base is kept with their result, by tree: a second task claimed from the same trunk runs it once" {
	project_make
	daicho add a --done-when 'cmd:make test' --touches impl.sh >/dev/null
	daicho add b --done-when 'cmd:make test' --touches impl.sh >/dev/null
	person daicho land --pause >/dev/null
	claim_work 1 w1 impl.sh 'echo ok' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = verified ]
	tree="$(git -C "$REPO" rev-parse 'main^{tree}')"
	[ "$(sql "SELECT count(*) FROM baselines WHERE tree = '$tree'")" = 1 ]
	inputs="$(sql "SELECT inputs FROM baselines WHERE tree = '$tree'")"
	[ "$(jq -c '[.read, .missing, .listed] | map(sort)' <<<"$inputs")" != null ]
	jq -e '.read | index("test.sh") and index("impl.sh") and index("Makefile")' <<<"$inputs" >/dev/null ||
		fail "inputs: $inputs"
	jq -e '.listed | index(".")' <<<"$inputs" >/dev/null || fail "inputs: $inputs"
	# The base's run is not repeated: its row stays as it was.
	at="$(sql "SELECT at_ms FROM baselines WHERE tree = '$tree'")"
	claim_work 2 w2 impl.sh 'echo ok # b' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 2)" = verified ] || fail "#2 is $(state 2): $(verdict 2 .summary)"
	[ "$(sql "SELECT at_ms FROM baselines WHERE tree = '$tree'")" = "$at" ]
}

# mutant: a missing strace falls back to judging untraced.
@test "a machine without strace judges nothing traced: the task stays reported, and the verdict says why in one line" {
	[ "$(id -u)" = 0 ] || skip "hides /usr/bin/strace in a mount namespace: needs root"
	command -v unshare >/dev/null || skip "no unshare"
	project_make
	daicho add impl --done-when 'cmd:make test' --touches impl.sh >/dev/null
	claim_work 1 w1 impl.sh 'echo ok' >/dev/null
	run unshare -m sh -c "mount --bind /dev/null /usr/bin/strace && exec daicho sweep"
	assert_success
	[ "$(state 1)" = reported ] || fail "#1 is $(state 1)"
	[ "$(verdict 1 .summary)" = "the checks' inputs are traced on the claim's base, and strace is not installed (no /usr/bin/strace): apt-get install strace; or, as a person, judge the task without its base: daicho edit ID --no-baseline" ] ||
		fail "summary: $(verdict 1 .summary)"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
}

# control: a task a person marked --no-baseline is judged without the
# base's run, so without its trace either (documented).
@test "--no-baseline (a person's): no run on the base, no traced inputs; the work's own checks judge" {
	project_make
	person daicho add --no-baseline impl --done-when 'cmd:make test' >/dev/null
	claim_work 1 w1 impl.sh 'echo ok' >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ] || fail "#1 is $(state 1): $(verdict 1 .summary)"
	[ "$(verdict 1 '[.checks[] | select(.check == "inputs")] | length')" = 0 ]
}
