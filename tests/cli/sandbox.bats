#!/usr/bin/env bats
# The sandbox's settings as a person uses them (docs/verification.md, "The
# judge's own world"): --check-needs net, a machine without bubblewrap,
# and bad input. What the sandbox stops is judge_adversary.bats's.

load land_helpers

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	judge_world_setup
}

# listen: a TCP service on the host's 127.0.0.1 for the test; PORT is set.
listen() {
	python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.close()' >"$TEST_ROOT/port" &
	LISTENER=$!
	while [ ! -s "$TEST_ROOT/port" ]; do sleep 0.05; done
	PORT="$(cat "$TEST_ROOT/port")"
}

teardown() {
	[ -z "${LISTENER:-}" ] || kill "$LISTENER" 2>/dev/null || true
}

# reach FILE: a check that connects to the host's service, and finds FILE.
reach() {
	echo "cmd:python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $PORT), 2)' && test -s $1"
}

@test "--check-needs net, set by a person, gives a task's checks the host's network; without it they have none" {
	listen
	daicho add sealed --done-when "$(reach out1.txt)" --touches out1.txt >/dev/null
	person daicho add --check-needs net open --done-when "$(reach out2.txt)" --touches out2.txt >/dev/null
	claim_work 1 w1 out1.txt one >/dev/null
	claim_work 2 w2 out2.txt two >/dev/null
	daicho sweep >/dev/null
	[ "$(daicho show --json 1 | jq -r .last_verdict.passed)" = false ]
	[ "$(daicho show --json 2 | jq -r .last_verdict.passed)" = true ]
	[ "$(state 2)" = landed ]
	[ "$(daicho show --json 2 | jq -r .check_needs)" = net ]
	run daicho show 2
	assert_output --partial "judged      cmd: checks get the network (--check-needs net)"
	# The person may take it back; an agent may not give or take it.
	ok person daicho edit 2 --check-needs none
	[ "$(daicho show --json 2 | jq -r .check_needs)" = null ]
	snapshot_ledger
	refused 6 daicho --as w1 edit 1 --check-needs net
	refused 6 daicho --as w1 add mine --check-needs net --done-when "$(reach out3.txt)"
	assert_ledger_unchanged
}

@test "--check-needs and --no-baseline: bad values and combinations are refused with one line, exit 2, the ledger unchanged" {
	daicho add t --done-when file:a.txt >/dev/null
	snapshot_ledger
	refused 2 person daicho add u --check-needs internet
	refused 2 person daicho add u --check-needs ''
	refused 2 person daicho edit 1 --check-needs all
	refused 2 person daicho edit 1 --no-baseline --baseline
	refused 2 person daicho config sandbox maybe
	refused 2 person daicho config sandbox on off
	assert_ledger_unchanged
}

@test "a machine where bubblewrap cannot make a sandbox judges nothing: the task stays reported, and the verdict says why" {
	[ "$(id -u)" = 0 ] || skip "hides /usr/bin/bwrap in a mount namespace: needs root"
	command -v unshare >/dev/null || skip "no unshare"
	daicho add t --done-when 'cmd:test -s out.txt' --touches out.txt >/dev/null
	claim_work 1 w1 out.txt one >/dev/null
	# bwrap gone, as on a machine without the package.
	run unshare -m sh -c "mount --bind /dev/null /usr/bin/bwrap && exec daicho sweep"
	assert_success
	[ "$(state 1)" = reported ] || fail "#1 is $(state 1)"
	run daicho show --json 1
	[ "$(jq -r .last_verdict.passed <<<"$output")" = false ]
	[[ "$(jq -r .last_verdict.summary <<<"$output")" == "checks run in a sandbox, and bubblewrap is not installed (no /usr/bin/bwrap): apt-get install bubblewrap; or let checks run unsandboxed, as a person: daicho config sandbox off" ]] ||
		fail "summary: $(jq -r .last_verdict.summary <<<"$output")"
	[ "$(sql "SELECT count(*) FROM events WHERE kind = 'verify-deferred' AND task = 1")" = 1 ]
	# The person's choice: unsandboxed, and the verdict says so.
	ok person daicho config sandbox off
	run unshare -m sh -c "mount --bind /dev/null /usr/bin/bwrap && exec daicho sweep"
	assert_success
	[ "$(daicho show --json 1 | jq -r .last_verdict.sandbox)" = off ]
	[[ "$(daicho show --json 1 | jq -r .last_verdict.summary)" == *"(checks ran unsandboxed: 'sandbox' is off)" ]]
	[ "$(state 1)" = landed ]
}

@test "a vacuous verdict: NEEDS YOU says the checks passed before the work, not that its holder blocked it, and what a person does" {
	daicho add t --done-when 'cmd:test -s README' >/dev/null
	claim_work 1 w1 junk.txt x >/dev/null
	daicho sweep >/dev/null
	[ "$(state 1)" = blocked ]
	run daicho status
	assert_output --partial "#1's checks passed before its work too (held by w1): t (vacuous: "
	refute_output --partial "#1 blocked by w1"
	assert_output --partial "resolve: daicho edit 1 --done-when ... | daicho edit 1 --no-baseline | daicho unblock 1"
	# The person's way out: judged on the commit alone, it lands.
	ok person daicho edit 1 --no-baseline
	ok person daicho unblock 1
	daicho report 1 --as w1 --commit "$(git -C "$REPO" rev-parse work/1)"
	daicho sweep >/dev/null
	[ "$(state 1)" = landed ]
}
