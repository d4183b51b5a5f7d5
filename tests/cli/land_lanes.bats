#!/usr/bin/env bats
# Landing in lanes (daicho land -j N, core/land_lanes.c): with a slow task
# in the batch, tasks that do not touch it are checked at once in a lane of
# their own and land without waiting for it; every trunk commit is still
# checked on exactly its tree.

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	land_setup
	# The checks here report to the test from outside their checkout
	# (each tree the land-check judges; what is on the trunk now).
	unsandboxed
	# The land-check records each tree it passes or fails.
	person daicho config land-check "if grep -qs broken b.txt; then echo \"\$(git rev-parse 'HEAD^{tree}') red\" >>'$TEST_ROOT/checked'; exit 1; fi; echo \"\$(git rev-parse 'HEAD^{tree}') green\" >>'$TEST_ROOT/checked'" >/dev/null
	START="$(trunk)"
}

# A check that is slow: at least LANE_SLOW_MS (1 s) at verification, so
# that the lander knows it is slow, and as long as it must when landing.
SLOW='sleep 1.2'

# assert_green_trunk: every commit the trunk pointed at since START passed
# the land-check on exactly its tree.
assert_green_trunk() {
	local c tree
	for c in $(first_parents "$START"); do
		tree="$(git -C "$REPO" rev-parse "$c^{tree}")"
		grep -qx "$tree green" "$TEST_ROOT/checked" ||
			fail "trunk commit ${c:0:12} was not checked green on its tree"
	done
}

# landed_in COMMIT: the task ids a trunk commit lands, sorted.
landed_in() {
	git -C "$REPO" log -1 --format=%B "$1" | sed -n 's/^Daicho-Land: #\([0-9]*\) .*/\1/p' | sort -n | tr '\n' ' '
}

# verify_queue: verify what is reported, landing paused, so that the whole
# queue is there for one 'daicho land'.
verify_queue() {
	person daicho land --pause >/dev/null
	daicho sweep >/dev/null || fail "sweep failed"
	person daicho land --resume >/dev/null
}

@test "a slow task does not hold up quick ones that do not touch it: they land first, in a lane of their own" {
	# #1's check, once merged for landing, finishes only when b.txt is on
	# the trunk: with one tree for the batch it would wait for itself
	# until its timeout, and fail.
	person daicho add --no-baseline slow --done-when "cmd:if [ \$(git rev-list --parents -n 1 HEAD | wc -w) -gt 2 ]; then until git -C '$REPO' cat-file -e main:b.txt 2>/dev/null; do sleep 0.1; done; else $SLOW; fi" \
		--check-timeout 2m >/dev/null
	person daicho add --no-baseline quick-b --done-when file:b.txt >/dev/null
	person daicho add --no-baseline quick-c --done-when file:c.txt >/dev/null
	claim_work 1 w1 a.txt a >/dev/null
	claim_work 2 w2 b.txt b >/dev/null
	claim_work 3 w3 c.txt c >/dev/null
	verify_queue
	run daicho land -j 2
	assert_success
	assert_output "land: 3 landed, 0 sent back"
	for id in 1 2 3; do [ "$(state $id)" = landed ] || fail "#$id is $(state $id)"; done
	# The quick ones landed first, together; the slow one on top of them.
	mapfile -t commits < <(first_parents "$START")
	[ "${#commits[@]}" -eq 2 ] || fail "the trunk moved ${#commits[@]} times"
	[ "$(landed_in "${commits[0]}")" = "2 3 " ]
	[ "$(landed_in "${commits[1]}")" = "1 " ]
	[ "$(git -C "$REPO" rev-parse "${commits[1]}^1")" = "${commits[0]}" ]
	assert_green_trunk
	assert_clean_checkout
	# Queue order had #1 first: the landed events say who went first.
	run daicho events --json
	order="$(jq -r 'map(select(.kind == "landed")) | map(.task | tostring) | join(" ")' <<<"$output")"
	[ "$order" = "2 3 1" ] || fail "landed in this order: $order"
}

@test "tasks that touch one another stay in one lane, in queue order; the others go ahead" {
	# #2 declares dir/**, which #1's change is in: one part, landed as one.
	person daicho add --no-baseline slow --done-when "cmd:$SLOW" >/dev/null
	person daicho add --no-baseline near --touches 'dir/**' --done-when file:dir/b.txt >/dev/null
	person daicho add --no-baseline far --done-when file:c.txt >/dev/null
	claim_work 1 w1 dir/a.txt a >/dev/null
	claim_work 2 w2 dir/b.txt b >/dev/null
	claim_work 3 w3 c.txt c >/dev/null
	verify_queue
	run daicho land -j 2
	assert_success
	assert_output "land: 3 landed, 0 sent back"
	mapfile -t commits < <(first_parents "$START")
	[ "${#commits[@]}" -eq 2 ] || fail "the trunk moved ${#commits[@]} times"
	[ "$(landed_in "${commits[0]}")" = "3 " ]
	[ "$(landed_in "${commits[1]}")" = "1 2 " ]
	assert_green_trunk
}

@test "a quick lane that fails: it is sent back, and the slow lane, checked on a trunk that did not come, is checked again" {
	person daicho add --no-baseline slow --done-when "cmd:$SLOW" >/dev/null
	person daicho add --no-baseline breaks --done-when file:b.txt >/dev/null
	person daicho add --no-baseline quick --done-when file:c.txt >/dev/null
	claim_work 1 w1 a.txt a >/dev/null
	claim_work 2 w2 b.txt broken >/dev/null
	claim_work 3 w3 c.txt c >/dev/null
	verify_queue
	run daicho land -j 2
	assert_success
	assert_output "land: 2 landed, 1 sent back (0 conflicts, 1 failing the merged tree)"
	[ "$(state 1)" = landed ]
	[ "$(state 2)" = open ]
	[ "$(state 3)" = landed ]
	run daicho prompt 2
	assert_output --partial "land-check"
	assert_green_trunk
	# The slow lane's tree as built (with #2 in it) was red; what landed
	# of it was checked again, green.
	grep -q ' red$' "$TEST_ROOT/checked"
	! git -C "$REPO" cat-file -e main:b.txt 2>/dev/null || fail "the broken b.txt landed"
	assert_clean_checkout
}

@test "quick tasks alone stay one merged tree under -j: one check for the batch" {
	for f in b c d; do daicho add "quick-$f" --done-when "file:$f.txt" >/dev/null; done
	claim_work 1 w1 b.txt b >/dev/null
	claim_work 2 w2 c.txt c >/dev/null
	claim_work 3 w3 d.txt d >/dev/null
	verify_queue
	run daicho land -j 4 --json
	assert_success
	[ "$(jq .landed <<<"$output")" -eq 3 ]
	[ "$(jq .checked <<<"$output")" -eq 1 ]
	[ "$(first_parents "$START" | wc -l)" -eq 1 ]
}

@test "land -j: bad values are refused with one line, exit 2, the ledger unchanged" {
	daicho add quick --done-when file:b.txt >/dev/null
	claim_work 1 w1 b.txt b >/dev/null
	verify_queue
	before="$(daicho export | sha256sum)"
	for bad in 0 -1 abc 257 ''; do
		run daicho land -j "$bad"
		[ "$status" -eq 2 ] || fail "-j '$bad' exited $status"
		[ "${#lines[@]}" -eq 1 ] || fail "-j '$bad' said more than one line: $output"
		assert_output --partial "daicho: "
	done
	[ "$(daicho export | sha256sum)" = "$before" ]
	[ "$(state 1)" = verified ]
}
