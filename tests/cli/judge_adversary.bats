#!/usr/bin/env bats
# The judge under attack: a dishonest worker tries to make its report pass
# through what it controls outside its commit (untracked files of the main
# checkout, $HOME, /tmp, PATH, a local service, the ledger, the sweep's
# environment, the project's git state: replace refs, grafts, shallow,
# sparse-checkout, filters, hooks, fsmonitor), through a check's process
# escaping or outliving its sandbox, through checks that already pass on
# the trunk (vacuous), and through claims that never expire. Honest
# controls beside them: honest work still verifies and lands.
#
# Most attacks run twice: with 'sandbox off' (a person's choice) as the
# control that proves the attack works on a judge that shares the worker's
# world, then with the sandbox on, where it must not.
#
# Note: bats keeps every test's files under /tmp, which the sandbox makes
# private and empty as a whole; so these tests cannot tell "the main work
# tree / the ledger's directory / the person's home is hidden" apart from
# "/tmp is private".

load land_helpers
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	judge_world_setup
}

# A file a test plants in the real /tmp, a server and a sleeper a test
# starts: gone after the test.
JA_TMP_FILE="/tmp/judge_adv_answer.$$"
teardown() {
	rm -f "$JA_TMP_FILE"
	[ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null || true
	local p
	for p in ${SLEEPER_PIDS:-}; do kill "$p" 2>/dev/null || true; done
	return 0
}

# verdict ID JQ: a jq expression over task ID's last verdict (raw).
# (jq options may come before JQ.)
verdict() {
	local id="$1"
	shift
	daicho show --json "$id" | jq -r "${@:1:$#-1}" ".last_verdict | ${*: -1}"
}

# accepted ID: the task was verified or landed.
accepted() {
	local s
	s="$(state "$1")"
	[ "$s" = verified ] || [ "$s" = landed ]
}

# PROBLEMS: what the loops found wrong, reported together at the end.
problem() { PROBLEMS+=("$*"); }
report_problems() {
	[ "${#PROBLEMS[@]}" -eq 0 ] || fail "$(printf '%s\n' "${PROBLEMS[@]}")"
}

# ---------------------------------------------------------------------------
# Honest controls.

# mutant: the sandbox hides the checkout's own git directory (judge.git) or
# mounts it unreadable, so git in a check fails; or the baseline compares the
# work against itself (every check "passed at base") and blocks honest work.
@test "control: honest work whose cmd: check uses git in the checkout verifies in the sandbox and lands; passed_at_base is false" {
	daicho add feature --done-when 'file:feature.txt' \
		--done-when 'cmd:git log --format=%s | grep -q "#1: feature.txt" && git cat-file -e HEAD:feature.txt' >/dev/null
	claim_work 1 w1 feature.txt done >/dev/null
	run daicho sweep
	assert_success
	[ "$(state 1)" = landed ] || fail "honest work did not land: $(daicho show 1)"
	[ "$(verdict 1 .sandbox)" = sandbox ] || fail "not judged in the sandbox: $(verdict 1 .)"
	[ "$(verdict 1 .vacuous)" = false ]
	[ "$(verdict 1 '[.checks[] | select(.check | startswith("cmd:") or startswith("file:")) | .passed_at_base] | unique | join(",")')" = false ] ||
		fail "passed_at_base: $(verdict 1 .checks)"
	git -C "$REPO" cat-file -e main:feature.txt || fail "the trunk lacks the work"
}

# mutant: the sandbox hides any node_modules/ (or the whole project) in a
# way that breaks a checkout, or the judge copies untracked files of the
# main checkout into its checkout (then the work would need them).
@test "control: honest work lands while the main checkout holds an untracked node_modules/ it does not need" {
	mkdir -p "$REPO/node_modules/left-pad"
	echo 'module.exports = 1' >"$REPO/node_modules/left-pad/index.js"
	daicho add lib --done-when 'file:lib.js' --done-when 'cmd:grep -q export lib.js && test ! -e node_modules' --touches lib.js >/dev/null
	claim_work 1 w1 lib.js 'export const x = 1' >/dev/null
	run daicho sweep
	assert_success
	[ "$(state 1)" = landed ] || fail "honest work did not land: $(daicho show 1)"
	[ -d "$REPO/node_modules/left-pad" ] || fail "the person's node_modules/ went"
}

# mutant: --no-baseline ignored (or only the agent's --no-baseline honoured):
# a person's exemption would still block the task as vacuous.
@test "control: a task a person exempts with --no-baseline verifies and lands though its check passes on the trunk" {
	daicho add refactor --done-when 'cmd:test -s README' >/dev/null
	run person daicho edit 1 --no-baseline
	assert_success
	[ "$(daicho show --json 1 | jq -r .no_baseline)" = true ]
	claim_work 1 w1 refactor.txt 'tidy' >/dev/null
	run daicho sweep
	assert_success
	[ "$(state 1)" = landed ] || fail "exempted task did not land: $(daicho show 1)"
	[ "$(verdict 1 .vacuous)" = false ]
}

# ---------------------------------------------------------------------------
# Reaching outside the commit. Each variant (esc_NAME N) sets SCRIPT (the
# committed probeN.sh, which passes only when the attack works), CHECK (the
# task's check; default cmd:sh probeN.sh) and SWEEP (the sweep's command
# line), and plants what the worker plants outside its commit.

esc_abs_untracked() {
	echo 42 >"$REPO/answer.txt"
	SCRIPT="grep -qx 42 '$REPO/answer.txt'"
}
esc_parent_search() {
	echo 42 >"$REPO/answer.txt"
	SCRIPT='d=$PWD; while [ "$d" != / ]; do [ -f "$d/answer.txt" ] && exec grep -qx 42 "$d/answer.txt"; d=$(dirname "$d"); done; exit 1'
}
esc_node_modules() {
	mkdir -p "$REPO/node_modules"
	printf '#!/bin/sh\necho 42\n' >"$REPO/node_modules/impl.sh"
	SCRIPT='d=$PWD; while [ "$d" != / ]; do [ -f "$d/node_modules/impl.sh" ] && { [ "$(sh "$d/node_modules/impl.sh")" = 42 ]; exit; }; d=$(dirname "$d"); done; exit 1'
}
esc_fake_grep_in_home_path() {
	mkdir -p "$HOME/.local/bin"
	# Says yes for any file that exists.
	printf '#!/bin/sh\nfor a; do f=$a; done\n[ -e "$f" ]\n' >"$HOME/.local/bin/grep"
	chmod +x "$HOME/.local/bin/grep"
	SCRIPT='unsolved'
	CHECK="cmd:grep -qx solved probe$1.sh"
	SWEEP=(env "PATH=$HOME/.local/bin:$PATH" daicho sweep)
}
esc_tmp_file() {
	echo 42 >"$JA_TMP_FILE"
	SCRIPT="grep -qx 42 '$JA_TMP_FILE'"
}
esc_home_cache() {
	mkdir -p "$HOME/.cache"
	echo 42 >"$HOME/.cache/answer"
	SCRIPT="grep -qx 42 '$HOME/.cache/answer' || grep -qx 42 \"\$HOME/.cache/answer\""
}
esc_local_service() {
	if [ -z "${SERVER_PID:-}" ]; then
		python3 -c 'import socket, sys, os
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.recv(1024); c.sendall(b"42\n"); c.close()' "$TEST_ROOT/port" </dev/null >/dev/null 2>&1 &
		SERVER_PID=$!
		local i
		for ((i = 0; i < 400; i++)); do [ -s "$TEST_ROOT/port" ] && break; sleep 0.05; done
		[ -s "$TEST_ROOT/port" ] || fail "the local service did not start"
	fi
	SCRIPT="exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/$(cat "$TEST_ROOT/port") && echo q >&3 && read -r a <&3 && [ \"\$a\" = 42 ]'"
}
esc_ledger_file() {
	# The ledger (and its WAL) holds the task's title.
	SCRIPT="cat '$LEDGER'* 2>/dev/null | grep -aq 'ledger_file #$1'"
}
esc_proc_environ() {
	SCRIPT='{ env; for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done; } 2>/dev/null | grep "^JUDGE_ADV_SECRET=" | sort -u
{ env; for f in /proc/[0-9]*/environ; do tr "\0" "\n" <"$f"; done; } 2>/dev/null | grep -q "^JUDGE_ADV_SECRET=answer-4242$"'
	SWEEP=(env JUDGE_ADV_SECRET=answer-4242 daicho sweep)
}

# run_escape VARIANT N: task N, with the variant's check, claimed by w1,
# the probe committed and reported, then one sweep.
run_escape() {
	local v="$1" n="$2" c
	SCRIPT='' CHECK="cmd:sh probe$n.sh" SWEEP=(daicho sweep)
	"esc_$v" "$n"
	[ "$(daicho add "$v #$n" --done-when "$CHECK" --touches "probe$n.sh")" = "$n" ] ||
		{ problem "$v: task is not #$n"; return; }
	[ "$(daicho claim "$n" --as w1)" = "$n" ] || fail "claim $n"
	c="$(work "$n" "probe$n.sh" "$SCRIPT")"
	daicho report "$n" --as w1 --commit "$c" || fail "report $n"
	"${SWEEP[@]}" >"$TEST_ROOT/sweep.$n" 2>&1 || true
}

ESCAPES="abs_untracked parent_search node_modules fake_grep_in_home_path tmp_file home_cache local_service ledger_file proc_environ"
# A PostgreSQL ledger is no file a check could read (its roles are the
# boundary there).
if backend_is_postgresql; then
	ESCAPES="${ESCAPES/ ledger_file/}"
fi

# mutant (one per variant; each is what the sandbox-off control shows):
# abs_untracked/parent_search/node_modules: the main work tree (or /tmp)
# not hidden; fake_grep_in_home_path: PATH passed through instead of fixed;
# tmp_file: no private /tmp; home_cache: HOME (the person's) not hidden;
# local_service: --share-net (no network namespace); ledger_file: the
# ledger's directory not hidden; proc_environ: the sandbox's own init (bwrap)
# started with the sweep's whole environment, readable at /proc/1/environ
# (clearenv only for the command); write_outside: the root file system, or
# the project, bound writable.
@test "a check that reaches outside the commit (untracked files, node_modules, PATH, /tmp, HOME, a local service, the ledger, the sweep's environment) passes unsandboxed and fails in the sandbox" {
	PROBLEMS=()
	local v
	for v in $ESCAPES; do
		land_setup
		SERVER_PID_WAS="${SERVER_PID:-}"
		# Control: the person turned the sandbox off; the attack works.
		person daicho config sandbox off >/dev/null
		run_escape "$v" 1
		if [ "$(state 1)" != landed ]; then
			problem "$v: control (sandbox off) did not land, so the attack is not shown: $(state 1): $(verdict 1 .summary)"
		elif [ "$(verdict 1 .sandbox)" != off ]; then
			problem "$v: control verdict.sandbox is $(verdict 1 .sandbox), not off"
		fi
		# The attack, in the sandbox.
		person daicho config sandbox on >/dev/null
		run_escape "$v" 2
		if accepted 2; then
			problem "$v: ACCEPTED in the sandbox ($(state 2)): $(verdict 2 .summary)"
		elif [ "$(verdict 2 .passed)" != false ] || [ "$(verdict 2 .sandbox)" != sandbox ]; then
			problem "$v: verdict passed=$(verdict 2 .passed) sandbox=$(verdict 2 .sandbox) (want false, sandbox): $(cat "$TEST_ROOT/sweep.2")"
		fi
		if daicho show --json 2 | grep -q answer-4242; then
			problem "$v: the sweep's secret environment is in #2's evidence: $(verdict 2 '.checks[] | select(.check | startswith("cmd:")) | .output')"
		fi
		if [ -e "$REPO/pwned.2" ]; then
			problem "$v: the sandboxed check wrote into the project root"
		fi
		if [ -n "${SERVER_PID:-}" ]; then kill "$SERVER_PID" 2>/dev/null || true; SERVER_PID=''; fi
	done
	report_problems
}

# mutant: no PID namespace (the check sees and kills daicho's processes), no
# --die-with-parent / namespace init (a daemon it starts outlives the
# sweep), or the project / the person's home bound writable (its writes
# stay).
@test "a check that kills its judge, leaves a process behind and writes into the project and HOME: unsandboxed all of it happens; sandboxed none of it" {
	local script tok
	for mode in off on; do
		tok="86399.$RANDOM$RANDOM"
		land_setup
		script="setsid sleep $tok </dev/null >/dev/null 2>&1 &
echo x >'$REPO/pwned'
echo 'alias ls=rm' >>'$HOME/.profile'
p=\$PPID
while [ \"\$p\" -gt 1 ]; do
	case \"\$(cat /proc/\$p/comm)\" in daicho|daicho-pg) kill -9 \"\$p\"; exit 0;; esac
	p=\$(awk '{print \$4}' /proc/\$p/stat)
done
kill -9 \$PPID 2>/dev/null
exit 0"
		person daicho config sandbox "$mode" >/dev/null
		daicho add killer --done-when 'cmd:sh probe1.sh' --touches probe1.sh >/dev/null
		daicho claim 1 --as w1 >/dev/null
		daicho report 1 --as w1 --commit "$(work 1 probe1.sh "$script")"
		run daicho sweep
		left="$(pgrep -f "sleep $tok" || true)"
		SLEEPER_PIDS="${SLEEPER_PIDS:-} $left"
		if [ "$mode" = off ]; then
			# Control: the attack works without the sandbox.
			[ "$status" -ne 0 ] || [ "$(state 1)" != landed ] ||
				fail "control: the unsandboxed check did not reach daicho: $output"
			[ -n "$left" ] || fail "control: the unsandboxed check left no process behind"
			[ -e "$REPO/pwned" ] || fail "control: the unsandboxed check did not write into the project"
			[ -e "$HOME/.profile" ] || fail "control: the unsandboxed check did not write into HOME"
		else
			[ "$status" -eq 0 ] || fail "the sandboxed check killed the sweep (exit $status): $output"
			assert_output --partial "sweep: "
			[ -z "$left" ] || fail "a process of the sandboxed check outlived it: $left"
			[ ! -e "$REPO/pwned" ] || fail "the sandboxed check wrote into the project root"
			[ ! -e "$HOME/.profile" ] || fail "the sandboxed check wrote into the person's HOME"
			[ "$(verdict 1 .sandbox)" = sandbox ]
			# Judged (its own shell may die of its kill: a failed check).
			[ "$(state 1)" != reported ] || fail "the sweep did not judge it: $(verdict 1 .summary)"
			[ -n "$(verdict 1 .summary)" ] || fail "no verdict"
		fi
	done
}

# ---------------------------------------------------------------------------
# The project's git state. Each trick_NAME adds task 1, has w1 claim it,
# commit bad work, plant the trick in the project's repository (or $HOME),
# show that plain git in the project is fooled (the control), and report.
# MARKER: a file a planted hook writes when it runs.

# ctl_checkout COMMIT: a linked worktree of the project at COMMIT, made by
# plain git as the person's git would (config, hooks, filters apply); its
# path on stdout; removed by ctl_remove.
ctl_checkout() {
	git -C "$REPO" worktree add -q --detach "$TEST_ROOT/ctl" "$1" >/dev/null 2>&1
	git -C "$TEST_ROOT/ctl" status --porcelain >/dev/null 2>&1 || true
	echo "$TEST_ROOT/ctl"
}
ctl_remove() {
	git -C "$REPO" -c core.hooksPath=/dev/null worktree remove --force --force "$TEST_ROOT/ctl" >/dev/null 2>&1 || rm -rf "$TEST_ROOT/ctl"
	git -C "$REPO" worktree prune
	rm -f "$MARKER"
}

# bad_work: task 1 wants out.txt to say good; w1 commits it saying bad
# (with a .gitattributes naming a filter 'fix' for out.txt). Sets BAD.
bad_work() {
	daicho add 'say good' --done-when 'cmd:grep -qx good out.txt' >/dev/null
	daicho claim 1 --as w1 >/dev/null
	work 1 .gitattributes 'out.txt filter=fix' >/dev/null
	BAD="$(work 1 out.txt bad work/1)"
}

# control_content: plain git's checkout of BAD shows out.txt as good (or
# the hook ran).
control_content() {
	local dir
	dir="$(ctl_checkout "$BAD")"
	if [ "$(cat "$dir/out.txt" 2>/dev/null)" != good ] && [ ! -e "$MARKER" ]; then
		problem "$1: control: the trick does not fool plain git (out.txt: $(cat "$dir/out.txt" 2>/dev/null))"
	fi
	ctl_remove
}

report_bad() { daicho report 1 --as w1 --commit "$BAD" || problem "$1: report refused"; }

trick_replace() {
	bad_work
	local good
	good="$(work g1 out.txt good)"
	git -C "$REPO" branch -q -D work/g1
	git -C "$REPO" replace "$BAD" "$good"
	[ "$(git -C "$REPO" show "$BAD:out.txt")" = good ] || problem "replace: control: plain git is not fooled"
	report_bad replace
}
trick_smudge_config() {
	bad_work
	git -C "$REPO" config filter.fix.smudge 'sed s/bad/good/'
	control_content smudge_config
	report_bad smudge_config
}
trick_smudge_includeif() {
	bad_work
	printf '[filter "fix"]\n\tsmudge = sed s/bad/good/\n' >"$TEST_ROOT/evil.inc"
	git -C "$REPO" config 'includeIf.gitdir:**/worktrees/**.path' "$TEST_ROOT/evil.inc"
	control_content smudge_includeif
	report_bad smudge_includeif
}
trick_smudge_home_gitconfig() {
	bad_work
	printf '[filter "fix"]\n\tsmudge = sed s/bad/good/\n' >>"$HOME/.gitconfig"
	control_content smudge_home_gitconfig
	report_bad smudge_home_gitconfig
}
HOOK_BODY='#!/bin/sh
echo good >out.txt 2>/dev/null
touch "MARKER_PATH"
exit 0'
plant_hook() { # PATH
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "${HOOK_BODY//MARKER_PATH/$MARKER}" >"$1"
	chmod +x "$1"
}
trick_post_checkout_hook() {
	bad_work
	plant_hook "$REPO/.git/hooks/post-checkout"
	control_content post_checkout_hook
	report_bad post_checkout_hook
}
trick_post_index_change_hook() {
	bad_work
	plant_hook "$REPO/.git/hooks/post-index-change"
	control_content post_index_change_hook
	report_bad post_index_change_hook
}
trick_hooks_path() {
	bad_work
	plant_hook "$TEST_ROOT/evil-hooks/post-checkout"
	plant_hook "$TEST_ROOT/evil-hooks/post-index-change"
	git -C "$REPO" config core.hooksPath "$TEST_ROOT/evil-hooks"
	control_content hooks_path
	report_bad hooks_path
}
trick_fsmonitor() {
	bad_work
	plant_hook "$TEST_ROOT/fsmonitor.sh"
	git -C "$REPO" config core.fsmonitor "$TEST_ROOT/fsmonitor.sh"
	control_content fsmonitor
	report_bad fsmonitor
}
trick_sparse_checkout() {
	echo 'clean code' >"$REPO/lib.txt"
	git -C "$REPO" add lib.txt && git -C "$REPO" commit -qm lib
	daicho add feature --done-when 'cmd:test -s feature.txt && ! grep -q FIXME lib.txt' >/dev/null
	daicho claim 1 --as w1 >/dev/null
	work 1 feature.txt feature >/dev/null
	BAD="$(work 1 lib.txt 'FIXME broken' work/1)"
	git -C "$REPO" sparse-checkout set --no-cone '/*' '!/lib.txt' >/dev/null 2>&1 ||
		problem "sparse_checkout: git sparse-checkout set failed"
	report_bad sparse_checkout
}

# An old trunk commit OLD (it added old.txt) reported as new work: a trick
# cuts the trunk's history above OLD so plain git no longer sees OLD in it.
old_work() {
	ROOT="$(trunk)"
	echo old >"$REPO/old.txt"
	git -C "$REPO" add old.txt && git -C "$REPO" commit -qm old
	OLD="$(trunk)"
	echo t >"$REPO/t.txt"
	git -C "$REPO" add t.txt && git -C "$REPO" commit -qm t
	TIP="$(trunk)"
	daicho add 'new work' --done-when commit >/dev/null
	daicho claim 1 --as w1 >/dev/null
	git -C "$REPO" update-ref refs/heads/work/1 "$OLD"
	BAD="$OLD"
}
control_history() {
	if git -C "$REPO" merge-base --is-ancestor "$OLD" main 2>/dev/null; then
		problem "$1: control: plain git still sees the old commit on the trunk"
	fi
}
trick_replace_graft() {
	old_work
	git -C "$REPO" replace --graft "$TIP" "$ROOT"
	control_history replace_graft
	report_bad replace_graft
}
trick_info_grafts() {
	old_work
	mkdir -p "$REPO/.git/info"
	echo "$TIP $ROOT" >"$REPO/.git/info/grafts"
	control_history info_grafts
	report_bad info_grafts
}
trick_shallow() {
	old_work
	echo "$TIP" >"$REPO/.git/shallow"
	control_history shallow
	report_bad shallow
}

TRICKS="replace smudge_config smudge_includeif smudge_home_gitconfig post_checkout_hook post_index_change_hook hooks_path fsmonitor sparse_checkout replace_graft info_grafts shallow"

# mutant (one per trick): the judge checks out from the project's repository
# (or fetches refs/replace/*), or drops one of GIT_NO_REPLACE_OBJECTS /
# GIT_GRAFT_FILE=/dev/null / the unlink of shallow and info/grafts /
# GIT_CONFIG_GLOBAL=/dev/null / the rewritten judge config (includeIf,
# filters, core.hooksPath, core.fsmonitor) / the hooks scrub.
@test "the project's git state (replace, grafts, shallow, sparse-checkout, smudge filters in .git/config, includeIf and ~/.gitconfig, hooks, hooksPath, fsmonitor) fools plain git but not the judge" {
	PROBLEMS=()
	local t
	for t in $TRICKS; do
		land_setup
		MARKER="$TEST_ROOT/marker"
		BAD=''
		"trick_$t"
		rm -f "$MARKER"
		daicho sweep >"$TEST_ROOT/sweep.out" 2>&1 || true
		if accepted 1; then
			problem "$t: ACCEPTED ($(state 1)): $(verdict 1 .summary)"
		elif [ "$(verdict 1 .passed)" = true ]; then
			problem "$t: verdict passed: $(verdict 1 .summary)"
		fi
		[ ! -e "$MARKER" ] || problem "$t: a hook of the worker's ran in the judge (marker written)"
		if [ -n "$BAD" ] && git -C "$REPO" merge-base --is-ancestor "$BAD" main 2>/dev/null &&
			[ "$BAD" != "${OLD:-}" ]; then
			problem "$t: the bad commit is on the trunk"
		fi
		OLD=''
	done
	report_problems
}

# ---------------------------------------------------------------------------
# The checkout's own .git is in the writable checkout.

# mutant: git run by daicho in the verification checkout after a check ran
# (git status for protected paths) reads whatever .git the check left there,
# so a core.fsmonitor (or filter) of the work's runs outside the sandbox.
@test "a check that replaces the checkout's .git with a repository of its own gets nothing run outside the sandbox" {
	person daicho config protect 'ci/**' >/dev/null
	local esc="$TEST_ROOT/escaped"
	script="rm -f .git
git init -q . >/dev/null 2>&1
git add -A >/dev/null 2>&1
printf '#!/bin/sh\ntouch \"$esc\"\nexit 1\n' >.fsm.sh
chmod +x .fsm.sh
git config core.fsmonitor \"\$PWD/.fsm.sh\"
git config core.hooksPath \"\$PWD\"
exit 0"
	daicho add plant --done-when 'cmd:sh probe1.sh' --touches probe1.sh >/dev/null
	daicho claim 1 --as w1 >/dev/null
	daicho report 1 --as w1 --commit "$(work 1 probe1.sh "$script")"
	run daicho sweep
	[ ! -e "$esc" ] || fail "the work's fsmonitor ran OUTSIDE the sandbox (as the person): $esc exists"
	[ "$(verdict 1 .sandbox)" = sandbox ]
}

# mutant: the protected-path check after the checks trusts `git status` in
# the checkout, whose .git the work's code may have replaced: a build that
# rewrites the protected test and hides it passes.
@test "a build step that rewrites a protected test and hides it behind a .git of its own is rejected" {
	mkdir -p "$REPO/ci"
	printf 'grep -qx good out.txt\n' >"$REPO/ci/test.sh"
	git -C "$REPO" add ci && git -C "$REPO" commit -qm ci
	person daicho config protect 'ci/**' >/dev/null
	build='echo "exit 0" >ci/test.sh
rm -f .git
git init -q . >/dev/null 2>&1 && git add -A >/dev/null 2>&1 &&
git -c user.name=x -c user.email=x@x commit -qm x >/dev/null 2>&1
exit 0'
	daicho add build --done-when 'cmd:sh build.sh' --done-when 'cmd:sh ci/test.sh' >/dev/null
	daicho claim 1 --as w1 >/dev/null
	work 1 out.txt bad >/dev/null
	daicho report 1 --as w1 --commit "$(work 1 build.sh "$build" work/1)"
	run daicho sweep
	! accepted 1 || fail "ACCEPTED ($(state 1)): the protected test was rewritten while the checks ran: $(verdict 1 .summary)"
	! git -C "$REPO" cat-file -e main:build.sh 2>/dev/null || fail "the work is on the trunk"
}

# ---------------------------------------------------------------------------
# Vacuous checks.

# mutant: the baseline skipped (or its result ignored) for cmd: / file:
# checks; a vacuous verdict recorded as passed, or sent back to claimed
# instead of blocked (NEEDS YOU); passed_at_base not reported.
@test "a one-byte unrelated commit whose cmd: or file: check already passes on the trunk is blocked as vacuous, and the agent cannot exempt it nor turn the sandbox off" {
	PROBLEMS=()
	local check
	for check in 'cmd:test -s README' 'file:README'; do
		land_setup
		daicho add 'fix readme' --done-when "$check" >/dev/null
		claim_work 1 w1 junk.txt '' >/dev/null
		[ "$(git -C "$REPO" cat-file -s work/1:junk.txt)" = 1 ] || problem "$check: not a one-byte commit"
		daicho sweep >/dev/null 2>&1 || true
		[ "$(state 1)" = blocked ] || problem "$check: state $(state 1), not blocked: $(verdict 1 .summary)"
		[ "$(verdict 1 .passed)" = false ] || problem "$check: verdict passed"
		[ "$(verdict 1 .vacuous)" = true ] || problem "$check: not vacuous"
		[[ "$(verdict 1 .summary)" == vacuous:* ]] || problem "$check: summary: $(verdict 1 .summary)"
		[ "$(verdict 1 --arg c "$check" '.checks[] | select(.check == $c) | .passed_at_base')" = true ] ||
			problem "$check: passed_at_base: $(verdict 1 .checks)"
		daicho status | grep -A2 'NEEDS YOU' | grep -q '#1' || problem "$check: #1 not under NEEDS YOU"
		# The agent tries to wave it through.
		run daicho edit 1 --no-baseline --as w1
		[ "$status" -eq 6 ] || problem "$check: agent's edit --no-baseline exit $status"
		run daicho config sandbox off --as w1
		[ "$status" -eq 6 ] || problem "$check: agent's config sandbox off exit $status"
		[ "$(daicho show --json 1 | jq -r .no_baseline)" = false ] || problem "$check: no_baseline set by the agent"
		[ "$(daicho config sandbox 2>/dev/null)" != off ] || problem "$check: sandbox turned off by the agent"
		! git -C "$REPO" cat-file -e main:junk.txt 2>/dev/null || problem "$check: the vacuous work landed"
	done
	report_problems
}

# mutant: the baseline cache (judge.git/daicho-baseline/TREE.json, in the
# ledger's directory, which the worker can write) trusted as is: a worker
# writes "false" for its check at the base's tree and the vacuous work is
# verified. (Whether a worker that can write the ledger file itself is in
# scope is for a person to judge; the cache is the cheaper target.)
@test "a baseline result planted in the judge's cache does not turn a vacuous report into a verified one" {
	daicho add warmup --done-when 'file:warm.txt' >/dev/null
	claim_work 1 w1 warm.txt warm >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
	daicho add 'fix readme' --done-when 'cmd:test -s README' >/dev/null
	claim_work 2 w1 junk.txt '' >/dev/null
	tree="$(git -C "$REPO" rev-parse 'main^{tree}')"
	mkdir -p "$REPO/.git/daicho/judge.git/daicho-baseline"
	echo '{"cmd:test -s README":false}' >"$REPO/.git/daicho/judge.git/daicho-baseline/$tree.json"
	daicho sweep >/dev/null 2>&1 || true
	! accepted 2 || fail "ACCEPTED ($(state 2)) on a planted baseline: $(verdict 2 .summary)"
	[ "$(verdict 2 .vacuous)" = true ] || fail "not vacuous: $(verdict 2 .)"
}

# ---------------------------------------------------------------------------
# max-lease.

# mutant: max-lease not enforced, or the max-hold bound taken as max-lease
# (not three times it).
@test "claim --lease past max-lease and --max-hold past three of them are refused (exit 2); within them a claim works" {
	daicho add t >/dev/null
	daicho ls --as w1 >/dev/null
	refused 2 daicho claim 1 --as w1 --lease 99999d
	refused 2 daicho claim 1 --as w1 --lease 5h
	refused 2 daicho claim 1 --as w1 --max-hold 13h
	[ "$(state 1)" = open ]
	run daicho claim 1 --as w1 --lease 4h --max-hold 12h
	assert_success
	assert_output 1
}

# ---------------------------------------------------------------------------
# Landing's land-check.

# mutant: the land-check run unsandboxed (or with the person's HOME / the
# ledger's directory visible): a land-check that passes only by reading them
# lands.
@test "a land-check that reads the person's home and the ledger passes unsandboxed and fails in the sandbox; nothing lands and nothing leaks" {
	for mode in off on; do
		land_setup
		echo 'hunter2-secret' >"$HOME/secret.txt"
		# The person's land-check runs every script in land.d/.
		person daicho config land-check 'for f in land.d/*.sh; do [ -e "$f" ] || continue; sh "$f" || exit 1; done' >/dev/null
		person daicho config sandbox "$mode" >/dev/null
		daicho add peek --done-when 'file:land.d/peek.sh' >/dev/null
		peek="cat '$HOME/secret.txt'"
		# (A PostgreSQL ledger is no file: only the home is read there.)
		backend_is_postgresql || peek="$peek && cat '$LEDGER'* | grep -aq peek"
		claim_work 1 w1 land.d/peek.sh "$peek" >/dev/null
		run daicho sweep
		if [ "$mode" = off ]; then
			[ "$(state 1)" = landed ] || fail "control: unsandboxed, the peeking land-check did not pass: $(state 1): $output"
		else
			[ "$(state 1)" != landed ] || fail "LANDED: the land-check read the person's home and the ledger in the sandbox"
			! git -C "$REPO" cat-file -e main:land.d/peek.sh 2>/dev/null || fail "the work is on the trunk"
			! daicho show --json 1 | grep -q hunter2 || fail "the person's secret is in the ledger's evidence"
			! daicho prompt 1 2>/dev/null | grep -q hunter2 || fail "the person's secret is in the worker's prompt"
		fi
	done
}

# mutant: with bubblewrap unusable, checks run unsandboxed (silently) rather
# than the verdict being deferred. Simulated by a ledger whose sandbox is on
# and a check that cannot tell: only checked when bwrap is missing.
@test "the sandbox setting is the person's: an agent cannot turn it off, and verdicts say how checks ran" {
	daicho ls --as w1 >/dev/null
	refused 6 daicho config sandbox off --as w1
	run daicho config sandbox
	refute_output off
	daicho add t --done-when 'cmd:test -s t.txt' --touches t.txt >/dev/null
	claim_work 1 w1 t.txt t >/dev/null
	daicho sweep >/dev/null
	[ "$(verdict 1 .sandbox)" = sandbox ]
}
