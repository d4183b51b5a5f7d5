# Set-up shared by verify.bats and sweep.bats (daicho's definition of done,
# `verify` and `sweep`).
#
# Each test runs in a fresh git repository ($REPO) whose ledger is the
# default one inside git ($REPO/.git/daicho/ledger.db, so checks without a
# commit run in $REPO), with no agent identity in the environment and the
# freshly built ./daicho first on PATH.

bats_require_minimum_version 1.5.0

# bats-support and bats-assert (/usr/lib/bats/*/load): their load.bash files
# source src/*.bash through a subshell per file; sourcing those files
# directly is the same and cheaper per test.
for _f in /usr/lib/bats/bats-support/src/*.bash /usr/lib/bats/bats-assert/src/*.bash; do
	# shellcheck disable=SC1090
	source "$_f"
done
unset _f

DAICHO_ROOT="${BATS_TEST_DIRNAME%/tests/cli}"

# shellcheck source=tests/backend.bash
source "$DAICHO_ROOT/tests/backend.bash"

T0=1800000000000 # a fixed clock (ms) for tests that age owners and leases

verify_setup() {
	TEST_ROOT="$(mktemp -d "$BATS_TEST_TMPDIR/v.XXXXXX")"
	cd -P "$TEST_ROOT" || return 1
	TEST_ROOT="$PWD"

	unset DAICHO_AGENT CLAUDE_CODE_SESSION_ID CODEX_THREAD_ID GEMINI_SESSION_ID
	unset DAICHO_NOW_MS DAICHO_BUSY_TIMEOUT DAICHO_LEDGER
	export NO_COLOR=1

	# git must find no repository above the test directory and no user
	# configuration.
	export HOME="$TEST_ROOT/home"
	mkdir -p "$HOME"
	export GIT_CEILING_DIRECTORIES="$TEST_ROOT"
	export GIT_CONFIG_NOSYSTEM=1

	export PATH="$DAICHO_ROOT:$PATH"

	REPO="$TEST_ROOT/repo"
	mkdir -p "$REPO"
	git -C "$REPO" init -q -b main
	git -C "$REPO" config user.email tester@example.com
	git -C "$REPO" config user.name Tester
	echo hello >"$REPO/README"
	git -C "$REPO" add README
	git -C "$REPO" commit -q -m init
	cd "$REPO" || return 1
	if backend_is_postgresql; then
		# No default ledger inside git: a new database, found
		# through DAICHO_LEDGER from anywhere in the repository.
		LEDGER="$(new_ledger_address "")" || fail "no PostgreSQL ledger"
		export DAICHO_LEDGER="$LEDGER"
		daicho init >/dev/null
	else
		daicho init >/dev/null
		LEDGER="$REPO/.git/daicho/ledger.db"
		[ -f "$LEDGER" ] || fail "daicho init did not create $LEDGER"
	fi
	VERIFY_DIR="$REPO/.git/daicho/verify"
	# These suites judge verification alone, so verified is where a task
	# stops here; landing (on by default in git) is land.bats's to test,
	# with verification underneath.
	[ -n "${VERIFY_LANDS:-}" ] || person daicho config land off >/dev/null
}

setup() {
	verify_setup
}

# sql QUERY: run one query on the ledger.
sql() {
	ledger_sql "$LEDGER" "$1"
}

# OWN_CHECKS: a jq function, own, over a task (show --json) or a verdict:
# the runs of the task's own checks, without the runs that judge where the
# reported commit came from (committed, on-branch, new-work, protected,
# in-commit, inputs).
OWN_CHECKS='def own: [(.last_verdict // .).checks[]
	| select(.check | IN("committed", "on-branch", "new-work", "protected", "in-commit", "inputs") | not)];'

# tf ID JQ: one jq expression over `show --json ID`, raw output; own is
# defined (OWN_CHECKS).
tf() {
	daicho show --json "$1" | jq -r "$OWN_CHECKS $2"
}

# The helpers below read the ledger with SQL rather than through
# `show --json | jq`: jq costs ~50 ms a call and these run many times per
# test. The tests check the same facts through show/ls/events --json too.

# assert_task ID STATE OWNER ATTEMPTS: the task's state, owner's name (- for
# none) and attempts.
assert_task() {
	local got
	got="$(sql "SELECT t.state || ' ' || coalesce(a.name, '-') || ' ' || t.attempts
		FROM tasks t LEFT JOIN agents a ON a.id = t.owner WHERE t.id = $1")"
	[ "$got" = "$2 $3 $4" ] || fail "task #$1: expected '$2 $3 $4' (state owner attempts), got '$got'"
}

# last_event ID: the newest event of task ID as compact JSON
# {kind, actor, detail} (jq builds it: the back ends' JSON functions
# differ).
last_event() {
	local row kind actor detail
	row="$(sql "SELECT e.kind, coalesce(a.name, ''), coalesce(e.detail, '')
		FROM events e LEFT JOIN agents a ON a.id = e.actor
		WHERE e.task = $1 ORDER BY e.id DESC LIMIT 1")"
	[ -n "$row" ] || return 0
	IFS='|' read -r kind actor detail <<<"$row"
	EVENT_KIND="$kind" EVENT_ACTOR="$actor" EVENT_DETAIL="$detail" jq -nc '{
		kind: env.EVENT_KIND,
		actor: (env.EVENT_ACTOR | if . == "" then null else . end),
		detail: (env.EVENT_DETAIL | if . == "" then null else fromjson end)}'
}

# event_kinds ID: the kinds of task ID's events, space-separated, oldest first.
event_kinds() {
	sql_joined ' ' "SELECT kind FROM events WHERE task = $1 ORDER BY id"
}

# ledger_data: the data tables, to prove a command changed nothing.
ledger_data() {
	ledger_dump "$LEDGER" tasks deps labels touches protects checks saves events settings verdicts
}

snapshot_ledger() {
	ledger_data >"$TEST_ROOT/ledger.before"
}

assert_ledger_unchanged() {
	ledger_data >"$TEST_ROOT/ledger.after"
	cmp -s "$TEST_ROOT/ledger.before" "$TEST_ROOT/ledger.after" ||
		fail "ledger changed: $(diff "$TEST_ROOT/ledger.before" "$TEST_ROOT/ledger.after" | head -20)"
}

# refused CODE CMD...: CMD exits CODE, prints nothing on stdout and exactly
# one line on stderr starting "daicho: ".
refused() {
	local code="$1"
	shift
	run --separate-stderr "$@"
	[ "$status" -eq "$code" ] ||
		fail "expected exit $code from '$*', got $status (stdout: '$output'; stderr: '$stderr')"
	[ -z "$output" ] || fail "expected empty stdout from '$*', got: '$output'"
	[ -n "$stderr" ] && [[ "$stderr" != *$'\n'* ]] && [[ "$stderr" == "daicho: "* ]] ||
		fail "expected one 'daicho: ' line on stderr from '$*', got: '$stderr'"
}

# ok CMD...: CMD exits 0 with nothing on stderr.
ok() {
	run --separate-stderr "$@"
	[ "$status" -eq 0 ] || fail "expected success from '$*', got exit $status (stderr: '$stderr')"
	[ -z "$stderr" ] || fail "expected nothing on stderr from '$*', got: '$stderr'"
}

# work_branch [NAME]: the main checkout goes to a branch of its own (NAME,
# default work), so that what a test commits there is work on a branch: a
# commit on the trunk itself is no task's own (the trunk stays main, which
# init pinned).
work_branch() {
	git -C "$REPO" checkout -q -b "${1:-work}"
}

# commit_work ID: what an honest worker does before reporting ID: commit
# everything in $REPO's work tree (tracked or not, .gitignore honoured),
# plus a note of its own (work/ID.txt, different for every call: work
# always changes something) as a new commit on HEAD, on the branch work/ID,
# without touching the checkout or its index. Prints the commit's hash.
commit_work() {
	local id="$1" index="$TEST_ROOT/work-index" tree note
	rm -f "$index"
	WORK_COMMITS=$((${WORK_COMMITS:-0} + 1))
	note="$(printf 'work on #%s (%s)\n' "$id" "$WORK_COMMITS" | git -C "$REPO" hash-object -w --stdin)"
	tree="$(cd "$REPO" && GIT_INDEX_FILE="$index" git read-tree HEAD &&
		GIT_INDEX_FILE="$index" git add -A . &&
		GIT_INDEX_FILE="$index" git update-index --add --cacheinfo "100644,$note,work/$id.txt" &&
		GIT_INDEX_FILE="$index" git write-tree)" || fail "commit_work: no tree"
	git -C "$REPO" commit-tree "$tree" -p HEAD -m "work on #$id ($WORK_COMMITS)" |
		tee "$TEST_ROOT/work-commit"
	git -C "$REPO" update-ref "refs/heads/work/$id" "$(cat "$TEST_ROOT/work-commit")"
}

# claim_report ID AGENT [report options...]: AGENT claims ID and reports it;
# without --commit among the options, with commit_work's commit.
claim_report() {
	local id="$1" agent="$2" commit
	shift 2
	[ "$(daicho claim "$id" --as "$agent")" = "$id" ] || fail "claim $id --as $agent failed"
	if [[ " $* " != *" --commit "* ]]; then
		commit="$(commit_work "$id")" || fail "commit_work $id failed"
		set -- --commit "$commit" "$@"
	fi
	daicho report "$id" --as "$agent" "$@" || fail "report $id --as $agent $* failed"
}

# sweep_says V R F E P [S W]: one `sweep` pass (extra options in SWEEP_OPTS)
# printing exactly that summary line (S agents stale and W waits escalated
# default to 0).
sweep_says() {
	local s="${6:-0}" w="${7:-0}"
	ok daicho sweep ${SWEEP_OPTS:-}
	assert_output "sweep: $1 verified, $2 rejected, $3 failed, $4 $( (($4 == 1)) && echo lease || echo leases) expired, $5 $( (($5 == 1)) && echo worktree || echo worktrees) pruned, $s $( ((s == 1)) && echo agent || echo agents) stale, $w $( ((w == 1)) && echo wait || echo waits) escalated"
}

# assert_no_worktrees: verification left nothing behind: no checkout in
# $VERIFY_DIR but the judge's warm ones (warm-K, with their locks), each
# free and holding exactly its commit, and no worktree registered with the
# project's git.
assert_no_worktrees() {
	local left d
	if [ -d "$VERIFY_DIR" ]; then
		left="$(ls -A "$VERIFY_DIR" | grep -vx 'warm-[0-9]*\(\.lock\)\{0,1\}' || true)"
		[ -z "$left" ] || fail "left in $VERIFY_DIR: $left"
		for d in "$VERIFY_DIR"/warm-*/; do
			[ -d "$d" ] || continue
			[ -z "$(git -C "$d" status --porcelain --ignored)" ] ||
				fail "the warm checkout $d holds what its commit does not: $(git -C "$d" status --porcelain --ignored)"
			flock -n "${d%/}.lock" true || fail "the warm checkout $d is still taken"
		done
	fi
	run git -C "$REPO" worktree list --porcelain
	[[ "$output" != *"/daicho/verify/"* ]] || fail "git still lists a verification worktree: $output"
}

# unsandboxed: the checks of this test act as a person, or signal the
# test, outside their checkout (commit to the trunk, push, pause landing,
# leave a mark for the test to wait on, read a file the test changes), which
# the sandbox forbids
# (docs/verification.md): the person turns it off, as 'config sandbox off'
# lets a person do. What the sandbox stops is tested in
# judge_adversary.bats.
unsandboxed() {
	person daicho config sandbox off >/dev/null
}
