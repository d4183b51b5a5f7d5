#!/usr/bin/env bats
# daicho config: settings shared through the ledger (max-hold, protect,
# trunk); who may change them; bad input.

load helpers

setup() {
	common_setup
	daicho add seed >/dev/null # the human is registered
}

@test "config lists every setting with its default when none is set" {
	ok daicho config
	assert_line --index 0 'jobs       (not set: the number of CPUs)'
	assert_line --index 2 'land       (not set: merge, in a git repository)'
	assert_line --index 4 'land-batch (not set: 16)'
	assert_line --index 6 'land-check (not set: none)'
	assert_line --index 8 'land-check-timeout (not set: 10m)'
	assert_line --index 10 'land-tries (not set: 3)'
	assert_line --index 12 'lease      (not set: 30m)'
	assert_line --index 14 'max-hold   (not set: three leases)'
	assert_line --index 16 'max-lease  (not set: 4h)'
	assert_line --index 18 'protect    (not set: none)'
	assert_line --index 20 'remote     (not set: origin)'
	assert_line --index 22 'sandbox    (not set: on)'
	assert_line --index 24 'stale-after (not set: 10m)'
	assert_line --index 26 'trunk      (not set: the branch the main work tree has out at the claim; main, else master, when it is detached)'
	ok daicho config max-hold
	assert_output '(not set: three leases)'
	ok daicho config --json
	run jq -c 'map([.key, .set, .value])' <<<"$output"
	assert_output '[["jobs",false,null],["land",false,null],["land-batch",false,null],["land-check",false,null],["land-check-timeout",false,null],["land-tries",false,null],["lease",false,null],["max-hold",false,null],["max-lease",false,null],["protect",false,null],["remote",false,null],["sandbox",false,null],["stale-after",false,null],["trunk",false,null]]'
}

@test "config KEY VALUE sets a setting, KEY prints it alone, --unset goes back to the default; each change is an event" {
	ok person daicho config max-hold 90m
	assert_output ''
	ok daicho config max-hold
	assert_output '1h30m'
	ok person daicho config protect 'tests/**' Makefile
	ok daicho config protect
	assert_output 'tests/** Makefile'
	ok person daicho config trunk main
	ok daicho config --json protect
	run jq -c '[.key, .set, .value, .set_by]' <<<"$output"
	assert_output "[\"protect\",true,[\"tests/**\",\"Makefile\"],\"$(id -un)\"]"
	ok person daicho config --unset max-hold
	ok daicho config max-hold
	assert_output '(not set: three leases)'
	ok daicho events --json
	run jq -c '[.[] | select(.kind == "config") | .detail]' <<<"$output"
	assert_output '[{"key":"max-hold","new":5400000,"old":null},{"key":"protect","new":["tests/**","Makefile"],"old":null},{"key":"trunk","new":"main","old":null},{"key":"max-hold","new":null,"old":5400000}]'
}

@test "config: only a human changes settings; an agent is refused with exit 6 and nothing changes" {
	snapshot_ledger
	DAICHO_AGENT=w1 refused 6 daicho config protect none
	stderr_contains 'only a human at a terminal may change settings'
	refused 6 daicho config --as w1 max-hold 1s
	stderr_contains '--as names an agent'
	CLAUDE_CODE_SESSION_ID=abc refused 6 daicho config --unset protect
	assert_ledger_unchanged
	# Reading is for everyone.
	DAICHO_AGENT=w1 ok daicho config
}

@test "config: bad input is refused with exit 2 and changes nothing" {
	snapshot_ledger
	refused 2 person daicho config nosuch 1
	assert_equal "$stderr" "daicho: unknown setting 'nosuch' (settings: jobs, land, land-batch, land-check, land-check-timeout, land-tries, lease, max-hold, max-lease, protect, remote, sandbox, stale-after, trunk)"
	refused 2 person daicho config jobs 0
	refused 2 person daicho config jobs 2x
	refused 2 person daicho config jobs 1025
	refused 2 person daicho config lease 0s
	refused 2 person daicho config stale-after never
	refused 2 daicho config nosuch
	refused 2 person daicho config max-hold 0s
	refused 2 person daicho config max-hold 10x
	refused 2 person daicho config max-hold 1h 2h
	refused 2 person daicho config protect '../out'
	refused 2 person daicho config protect 'ok/**' '/abs'
	refused 2 person daicho config trunk 'a..b'
	refused 2 person daicho config trunk '-x'
	refused 2 person daicho config trunk 'has space'
	refused 2 person daicho config trunk main dev
	refused 2 person daicho config --unset
	refused 2 person daicho config --unset max-hold 1h
	assert_ledger_unchanged
}

@test "config lease, stale-after and jobs are the defaults of claim, run, sweep, status and send; a flag wins" {
	daicho add a >/dev/null
	daicho add b >/dev/null
	ok person daicho config lease 5m
	DAICHO_AGENT=w1 ok daicho claim 2
	[ "$(daicho show --json 2 | jq -r '.lease_expires_ms - .claim_named_ms')" = 300000 ]
	DAICHO_AGENT=w1 ok daicho claim 3 --lease 7m
	[ "$(daicho show --json 3 | jq -r '.lease_expires_ms - .claim_named_ms')" = 420000 ]
	# stale-after: an agent unseen 2 minutes is stale under a 1m setting.
	export DAICHO_NOW_MS=1800000000000
	DAICHO_AGENT=w9 daicho ls >/dev/null
	export DAICHO_NOW_MS=$((1800000000000 + 120000))
	ok daicho agents --json
	[ "$(jq -r '.[] | select(.name == "w9") | .state' <<<"$output")" = active ]
	ok person daicho config stale-after 1m
	ok daicho agents --json
	[ "$(jq -r '.[] | select(.name == "w9") | .state' <<<"$output")" = stale ]
	ok daicho agents --json --stale-after 1h
	[ "$(jq -r '.[] | select(.name == "w9") | .state' <<<"$output")" = active ]
}

@test "config jobs is run's -j and sweep's -j when none is given" {
	ok person daicho config jobs 1
	for i in 1 2 3; do daicho add "t$i" >/dev/null; done
	# One slot: the workers run one after another, never two at once.
	ok daicho run -q -- sh -c 'mkdir "$TEST_ROOT/running" || exit 9; sleep 0.2; rmdir "$TEST_ROOT/running"'
	[ "$(daicho ls --json --state verified | jq length)" = 4 ] || fail "$(daicho ls)"
	ok daicho config jobs
	assert_output 1
}
