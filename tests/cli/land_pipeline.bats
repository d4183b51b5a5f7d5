#!/usr/bin/env bats
# The pipeline test of landing: a DAG of 31 tasks run by 'daicho run -j 4
# --worktree' with scripted workers (land_worker.sh) in a real repository:
# schema -> code chains, six tasks appending to one config file without
# declaring touches (so --no-baseline: a person judges them without the
# base's run, whose traced inputs would want a scope), a rename beside a new caller of the old name, a worker
# that only resets to the trunk and reports, and a person's commit on the
# checked-out trunk in the middle of the run. At the end every honest task
# has landed with no line lost, every commit the trunk pointed at passes the
# land-check, the person's commit is kept, the main work tree is clean, and
# the faker is refused.

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

# task TITLE OPS [add options...]: add a task whose prompt is OPS (lines for
# land_worker.sh); prints its id.
task() {
	local title="$1" ops="$2"
	shift 2
	printf '%s\n' "$ops" >"$TEST_ROOT/body"
	person daicho add "$title" --body-file "$TEST_ROOT/body" "$@"
}

@test "31 tasks through run -j 4 --worktree: every honest one lands, nothing lost, the trunk green at every commit" {
	# The project: a library and its caller, a config file, and the
	# check of the whole tree the trunk must always pass.
	cd "$REPO"
	printf 'greet() { echo hi; }\n' >lib.sh
	printf '. ./lib.sh\ngreet\n' >main.sh
	printf '# settings\n' >config.txt
	cat >check-all.sh <<-'EOF'
		#!/bin/sh
		# The trunk-wide check: every script runs, the config is whole.
		set -e
		sh main.sh >/dev/null
		for f in src/*.sh caller.sh; do
			[ -e "$f" ] || continue
			sh "$f" >/dev/null
		done
		if grep -q '^[<>=]\{7\}' config.txt; then exit 1; fi
	EOF
	git add . && git commit -qm 'the project'
	start="$(trunk)"
	person daicho config land-check 'sh check-all.sh'
	# Six appends to one file conflict with each other in turn: each
	# goes back until it is redone on a trunk that has the others.
	person daicho config land-tries 8

	for i in 1 2 3 4 5; do
		s="$(task "schema $i" "write schema/t$i.sql table t$i" --done-when "file:schema/t$i.sql")"
		task "code $i" "write src/t$i.sh grep -q 'table t$i' schema/t$i.sql" \
			--after "$s" --done-when "cmd:sh src/t$i.sh" --touches "src/t$i.sh" >/dev/null
	done
	for i in 1 2 3 4 5 6; do
		task "setting $i" "append config.txt key$i=$i" --done-when "cmd:grep -qx key$i=$i config.txt" --no-baseline >/dev/null
	done
	rename="$(task rename 'rename greet salute' --done-when 'cmd:grep -q "^salute" lib.sh && sh main.sh' --touches lib.sh --touches main.sh)"
	caller="$(task caller 'caller caller.sh' --done-when 'cmd:sh caller.sh' --touches caller.sh)"
	faker="$(task 'pretend' 'nothing' --done-when 'cmd:sh main.sh')"
	for i in $(seq 1 12); do
		task "doc $i" "write docs/d$i.md doc $i" --done-when "file:docs/d$i.md" >/dev/null
	done
	total="$(daicho ls --json | jq length)"
	[ "$total" -eq 31 ]

	# A person commits on the checked-out trunk once some work landed.
	(
		for _ in $(seq 1 600); do
			n="$(daicho ls --state landed --json 2>/dev/null | jq length)"
			[ "${n:-0}" -ge 5 ] && break
			sleep 0.1
		done
		for _ in $(seq 1 100); do
			printf 'a person was here\n' >"$REPO/person.txt"
			git -C "$REPO" add person.txt 2>/dev/null &&
				git -C "$REPO" commit -qm 'a person' 2>/dev/null && break
			sleep 0.05
		done
		git -C "$REPO" rev-parse HEAD >"$TEST_ROOT/person"
	) &
	person_pid=$!

	run --separate-stderr daicho run -j 4 --worktree --retry-backoff 100ms -- "$DAICHO_ROOT/tests/cli/land_worker.sh" '{id}'
	wait "$person_pid"
	# One task could not be done: the faker's.
	[ "$status" -eq 1 ] || fail "run: exit $status: $stderr"
	[[ "$stderr" == *"1 of 31 tasks did not reach verified"* ]] ||
		fail "$stderr; not landed: $(daicho ls --json | jq -c '[.[] | select(.state != "landed") | [.id, .title, .state]]'); their events: $(for id in $(daicho ls --json | jq -r '.[] | select(.state != "landed") | .id'); do daicho log "$id" 2>&1 | tail -n 12; done)"

	# Every honest task landed; the faker failed, its work refused.
	run daicho ls --json
	[ "$(jq '[.[] | select(.state == "landed")] | length' <<<"$output")" -eq 30 ] ||
		fail "not every honest task landed: $(jq -c '[.[] | select(.state != "landed") | [.id, .state]]' <<<"$output")"
	[ "$(state "$faker")" = failed ]
	run daicho show "$faker"
	assert_output --regexp "was already on the trunk|is on the trunk as it is now|holds no change"

	# No line lost: config.txt has every setting, once.
	run git -C "$REPO" show main:config.txt
	for i in 1 2 3 4 5 6; do
		[ "$(grep -cx "key$i=$i" <<<"$output")" -eq 1 ] || fail "key$i lost or doubled: $output"
	done
	# The rename and the caller both landed, the caller on the new name.
	run git -C "$REPO" show main:caller.sh
	assert_output --partial salute

	# The person's commit is kept.
	[ -s "$TEST_ROOT/person" ]
	git -C "$REPO" merge-base --is-ancestor "$(cat "$TEST_ROOT/person")" main
	[ "$(git -C "$REPO" show main:person.txt)" = 'a person was here' ]

	# The main work tree is clean and holds main.
	[ "$(git -C "$REPO" symbolic-ref HEAD)" = refs/heads/main ]
	run git -C "$REPO" status --porcelain --untracked-files=no
	[ -z "$output" ] || fail "the main work tree is not clean: $output"

	# Every commit main pointed at since the start passes the land-check
	# (the person's commit, a commit of its own, aside: it is checked as
	# the parent a landing merged onto).
	n=0
	for c in $(first_parents "$start"); do
		dir="$TEST_ROOT/check"
		rm -rf "$dir"
		git -C "$REPO" worktree add -q --detach "$dir" "$c"
		(cd "$dir" && sh check-all.sh) || fail "trunk commit $c fails the land-check"
		git -C "$REPO" worktree remove --force "$dir"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
	# Each code task ran against its schema: the schema landed first.
	for i in 1 2 3 4 5; do
		git -C "$REPO" cat-file -e "main:src/t$i.sh"
	done
}
