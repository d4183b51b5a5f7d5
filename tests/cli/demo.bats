#!/usr/bin/env bats
# make demo (examples/demo.sh) does what the README says: every chapter
# verified despite crashes, rate limits and false reports, and it ends
# with how often a person was needed and how long each item waited.

load helpers

setup() {
	any_backend "the demo makes a SQLite ledger of its own"
	common_setup
}

@test "the demo verifies 90 of 90 chapters and ends with the person's figure" {
	unset DAICHO_LEDGER
	run "$DAICHO_ROOT/examples/demo.sh"
	assert_success
	assert_line --regexp '^daicho run: 90 open tasks labelled nightly in /.*/ledger\.db \(90 ready, 0 after others\), 15 at once$'
	assert_line --regexp '^daicho run: 90 verified, 0 failed, '
	assert_line --regexp '; 90 of 90 chapters verified$'
	# What the sweep caught, read from the events, agrees with the run's
	# own count of false reports and retries.
	summary=$(grep '^daicho run: 90 verified' <<<"$output")
	caught=$(grep 'false reports rejected' <<<"$output")
	[[ "$summary" =~ ([0-9]+)\ retried,\ ([0-9]+)\ false\ reports?\ caught ]] || fail "$summary"
	retried=${BASH_REMATCH[1]} lies=${BASH_REMATCH[2]}
	[[ "$caught" =~ ^([0-9]+)\ false\ reports\ rejected,\ ([0-9]+)\ crashes\ retried ]] || fail "$caught"
	[ "${BASH_REMATCH[1]}" -eq "$lies" ] || fail "events say ${BASH_REMATCH[1]} rejected, the run $lies: $caught / $summary"
	[ "${BASH_REMATCH[2]}" -eq "$retried" ] || fail "events say ${BASH_REMATCH[2]} retried, the run $retried"
	# With 90 first attempts, some agent lies or crashes (18 % each try).
	[ $((lies + retried)) -gt 0 ] || fail "nothing went wrong in 90 tasks: is the simulated agent still fallible? $summary"
	# The last line: items per 100 tasks, how long each waited, none left.
	last=${lines[${#lines[@]} - 1]}
	[[ "$last" =~ ^([0-9]+)\ items?\ needed\ a\ person\ in\ 90\ tasks:\ [0-9.]+\ per\ 100\ tasks(\;\ each\ waited\ [0-9.]+\ s\ \(median\),\ [0-9.]+\ s\ at\ most\ \(.*\))?\;\ 0\ still\ waiting$ ]] ||
		fail "last line: $last"
	# The person answered every question an agent sent: each was read
	# within the second the person takes between looks, and a bit.
	if [ "${BASH_REMATCH[1]}" -gt 0 ]; then
		[[ "$last" =~ ,\ ([0-9.]+)\ s\ at\ most ]]
		awk -v w="${BASH_REMATCH[1]}" 'BEGIN { exit !(w < 5) }' || fail "waited ${BASH_REMATCH[1]} s"
	fi
}
