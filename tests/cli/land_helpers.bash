# Set-up shared by the landing tests (land.bats, land_adversary.bats): a
# repository and its ledger as verify_helpers.bash makes them, with landing
# on (its default), and workers that commit without touching the main
# checkout.

VERIFY_LANDS=1
load verify_helpers

# One verification at a time: the queue's order is the order of the
# verdicts, and these tests name who lands first.
land_setup() {
	verify_setup
	person daicho config jobs 1
}

setup() {
	land_setup
}

# judge_world_setup: land_setup, on SQLite only. The judge's world (its
# repository, the sandbox) is the same code whatever the ledger's back end:
# its suites run once, on SQLite, where a ledger is also a file a check
# could try to read. PostgreSQL's own part (the baselines table, a lane's
# own connection) is in every verification and landing of the PostgreSQL
# pass.
judge_world_setup() {
	if backend_is_postgresql; then
		skip "the sandbox and the judge's repository do not depend on the back end (run on SQLite)"
	fi
	land_setup
}

# Tasks added with --no-baseline: their checks look for a file the trunk
# has already (config.txt, c.txt), so at the claim's base they pass too and
# prove nothing (docs/verification.md, "Checks that prove nothing"); what
# these tests judge is landing, not the checks, so the person says so.


# work ID FILE CONTENT [BASE]: what a worker of task ID does in a checkout
# of its own: from BASE (default: the trunk, main, as it is now) set FILE
# to CONTENT (a line; the file is made when missing) and commit that on
# branch work/ID, moving it; the main checkout is untouched. Prints the
# commit.
work() {
	local id="$1" file="$2" content="$3" base="${4:-main}" index blob tree commit parent
	index="$TEST_ROOT/work-index.$id"
	rm -f "$index"
	parent="$(git -C "$REPO" rev-parse "$base")" || fail "work: no $base"
	blob="$(printf '%s\n' "$content" | git -C "$REPO" hash-object -w --stdin)"
	tree="$(cd "$REPO" && GIT_INDEX_FILE="$index" git read-tree "$parent" &&
		GIT_INDEX_FILE="$index" git update-index --add --cacheinfo "100644,$blob,$file" &&
		GIT_INDEX_FILE="$index" git write-tree)" || fail "work: no tree"
	commit="$(git -C "$REPO" commit-tree "$tree" -p "$parent" -m "#$id: $file")" ||
		fail "work: no commit"
	git -C "$REPO" update-ref "refs/heads/work/$id" "$commit"
	rm -f "$index"
	echo "$commit"
}

# claim_work ID AGENT FILE CONTENT: AGENT claims ID, commits FILE with
# CONTENT on the trunk as it is now, and reports it. Prints the commit.
claim_work() {
	local commit
	[ "$(daicho claim "$1" --as "$2")" = "$1" ] || fail "claim $1 --as $2 failed"
	commit="$(work "$1" "$3" "$4")" || return 1
	daicho report "$1" --as "$2" --commit "$commit" || fail "report $1 failed"
	echo "$commit"
}

# trunk: the trunk's commit now.
trunk() {
	git -C "$REPO" rev-parse main
}

# state ID: the task's state.
state() {
	sql "SELECT state FROM tasks WHERE id = $1"
}

# first_parents FROM: the first-parent history of main since FROM, oldest
# first: the commits the trunk pointed at.
first_parents() {
	git -C "$REPO" rev-list --first-parent --reverse "$1..main"
}

# assert_clean_checkout: the main work tree has main out, clean, and its
# files are main's.
assert_clean_checkout() {
	[ "$(git -C "$REPO" symbolic-ref HEAD)" = refs/heads/main ] ||
		fail "the main work tree no longer has main out"
	run git -C "$REPO" status --porcelain
	[ -z "$output" ] || fail "the main work tree is not clean: $output"
}
