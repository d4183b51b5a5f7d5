#!/usr/bin/env bats
# make demo (examples/demo.sh) does what the README says: every chapter
# verified despite crashes, rate limits and false reports, and it ends
# with how often a person was needed and how long each item waited.

load helpers

@test "the demo verifies 90 of 90 chapters and ends with the person's figure" {
	unset DAICHO_LEDGER
	run "$DAICHO_ROOT/examples/demo.sh"
	assert_success
	assert_line --regexp '^daicho run: 90 open tasks labelled nightly in /.*/ledger\.db \(90 ready, 0 after others\), 15 at once$'
	assert_line --regexp '^daicho run: 90 verified, 0 failed, '
	assert_line --regexp '; 90 of 90 chapters verified$'
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
