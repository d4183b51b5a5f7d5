#!/usr/bin/env bats
# Tamper evidence on one Unix account (docs/security.md): the events form a
# hash chain, and 'daicho doctor --audit' (and the sweep, hourly) replays
# them against the tables and names every row no event explains. Each
# tampering below is what a process that writes the ledger directly
# (sqlite3, a psql login) does to fake a verdict or loosen its checks; the
# honest control is a ledger that went through every kind of move.
#
# mutants: EVENT_HASH_SQL leaving out a column (detail): the rewritten
# detail of event #5 passes; a state_after() entry wrong (reopen taken as
# cancelled): the honest control fails; audit_chain() taking every event
# without a hash for one from before the chain: the event inserted without
# a hash passes.

load verify_helpers

# honest_history: a ledger through add, claim, block, unblock, report, a
# verdict each way, cancel, reopen, release --force, an edit of the checks,
# a lease run out, a wait and the sweep's own audit.
honest_history() {
	work_branch feature
	daicho add good --touches good.txt --done-when file:good.txt >/dev/null    # 1
	daicho add bad --touches bad.txt --done-when file:bad.txt >/dev/null       # 2
	daicho add blocked >/dev/null                                              # 3
	daicho add dropped >/dev/null                                              # 4
	daicho add taken >/dev/null                                                # 5
	daicho add edited --done-when saved >/dev/null                             # 6
	echo yes >"$REPO/good.txt"
	claim_report 1 w1 >/dev/null
	rm "$REPO/good.txt"
	claim_report 2 w2 >/dev/null
	daicho --as w3 claim 3 >/dev/null
	daicho --as w3 block 3 --reason 'which file?' >/dev/null
	person daicho unblock 3 >/dev/null
	person daicho cancel 4 >/dev/null
	person daicho reopen 4 >/dev/null
	daicho --as w4 claim 5 >/dev/null
	person daicho release 5 --force >/dev/null
	person daicho edit 6 --done-when commit --done-when saved >/dev/null
	daicho --as w5 claim 6 --lease 1m >/dev/null
	daicho --as w1 wait --for '#6' >/dev/null
	daicho sweep >/dev/null
	DAICHO_NOW_MS=$(($(date +%s%3N) + 600000)) daicho sweep >/dev/null
	[ "$(daicho ls --json | jq -r 'map(.state) | join(" ")')" = "verified open open open open open" ] ||
		fail "the history went elsewhere: $(daicho ls)"
}

# as_new_ledger: the ledger so far, exported and imported into a new one
# that becomes $LEDGER (DAICHO_LEDGER): each tampering gets its own copy.
as_new_ledger() {
	local file="$TEST_ROOT/export.jsonl" new
	[ -s "$file" ] || daicho export >"$file"
	new="$(new_ledger_address "$TEST_ROOT/copy-$RANDOM.db")"
	# Made outside the repository: a new ledger there would take its trunk.
	(cd "$TEST_ROOT" && daicho --ledger "$new" init >/dev/null)
	person daicho --ledger "$new" import "$file" >/dev/null || fail "import into $new failed"
	LEDGER="$new"
	export DAICHO_LEDGER="$new"
}

# capture CMD...: run CMD; status, output and stderr.
capture() {
	run --separate-stderr "$@"
}

# chain_by_hand: recompute the chain from 'daicho export' with jq and
# sha256sum, independently of daicho: prints "ok" or the first event whose
# hash does not follow.
chain_by_hand() {
	local prev="" line id hash want
	while IFS= read -r line; do
		id="$(jq -r .id <<<"$line")"
		hash="$(jq -r '.hash // ""' <<<"$line")"
		want="$(jq -j --arg p "$prev" '"\($p)|\(.at_ms)|\(.actor // "")|\(.kind)|\(.task // "")|\(.detail // "")"' <<<"$line" |
			sha256sum | cut -d' ' -f1)"
		[ "$hash" = "$want" ] || { echo "event #$id"; return; }
		prev="$hash"
	done < <(daicho export | jq -c 'select(.table == "events") | .row')
	echo ok
}

# audit_names PATTERN: doctor --audit fails (exit 1) and names PATTERN.
audit_names() {
	capture daicho doctor --audit
	[ "$status" -eq 1 ] || fail "expected exit 1 from doctor --audit, got $status: $output $stderr"
	[[ "$output" == *"$1"* ]] || fail "the audit does not name '$1': $output"
	[[ "$stderr" == *"no event explains"* ]] || fail "$stderr"
}

@test "an honest ledger, through every kind of move, audits clean; the chain checks out by hand" {
	honest_history
	capture daicho doctor --audit
	[ "$status" -eq 0 ] || fail "an honest ledger: exit $status: $output $stderr"
	[[ "$output" == *" events ("*" chained), 6 tasks replayed" ]] || fail "$output"
	[ "$(chain_by_hand)" = ok ] || fail "by hand, the chain breaks at $(chain_by_hand)"
	ok daicho doctor --audit --json
	jq -e '.findings == [] and .tasks == 6 and .before_chain == 0 and .events > 20' <<<"$output" >/dev/null ||
		fail "$output"
	assert_needs_no_tamper
}

# assert_needs_no_tamper: status shows no "tampered" item.
assert_needs_no_tamper() {
	daicho status --json | jq -e '[.needs_you[] | select(.kind == "tampered")] == []' >/dev/null ||
		fail "NEEDS YOU shows a tampering: $(daicho status)"
}

@test "a task set to verified behind daicho's back is named, and NEEDS YOU shows it" {
	honest_history
	sql "UPDATE tasks SET state = 'verified' WHERE id = 3"
	audit_names "task #3 is verified, but its events leave it open"
	ok daicho status
	[[ "$output" == *"the ledger was written around daicho: 1 row no event explains (task #3 is verified"* ]] ||
		fail "$output"
	[[ "$output" == *"resolve: daicho doctor --audit"* ]] || fail "$output"
}

@test "each way of writing around daicho is named: generated over the tables it touches" {
	honest_history
	local last
	last="$(sql "SELECT max(id) FROM events")"
	local -a cases=(
		"UPDATE tasks SET state = 'landed' WHERE id = 2|task #2 is landed"
		"UPDATE tasks SET state = 'open' WHERE id = 1|task #1 is open"
		"UPDATE checks SET spec = 'saved' WHERE task = 1|task #1: its checks are not the ones its events set"
		"DELETE FROM checks WHERE task = 6|task #6: its checks are not the ones its events set"
		"INSERT INTO checks (task, seq, spec) VALUES (1, 9, 'saved')|task #1: its checks are not the ones its events set"
		"INSERT INTO tasks (id, title, state, created_ms, updated_ms) VALUES (7, 'forged', 'verified', 0, 0)|task #7: no event added it"
		"UPDATE events SET detail = '{\"x\":1}' WHERE id = 5|event #5 does not follow"
		"UPDATE events SET kind = 'verified' WHERE id = $((last - 1))|event #$((last - 1)) does not follow"
		"UPDATE events SET at_ms = at_ms + 1 WHERE id = 7|event #7 does not follow"
		"DELETE FROM events WHERE id = 9|event #10 does not follow"
		"INSERT INTO events (at_ms, actor, kind, task, detail) VALUES (1, 1, 'verified', 3, NULL)|has no hash, though the chain began before it"
		"UPDATE events SET hash = NULL WHERE id = 4|event #4 has no hash"
	)
	# A forged task id far past every task's (SQLite's shell does not
	# enforce foreign keys; PostgreSQL does): named, not a slot per id.
	backend_is_postgresql ||
		cases+=("INSERT INTO events (at_ms, actor, kind, task, detail) VALUES (1, 1, 'add', 1099511627776, NULL)|is about task #1099511627776, which no task row has")
	local c query want
	for c in "${cases[@]}"; do
		query="${c%%|*}" want="${c#*|}"
		# A copy through export and import audits clean (the chain
		# travels with the events), until it is written around.
		as_new_ledger
		ok daicho doctor --audit
		sql "$query"
		audit_names "$want"
	done
}

@test "the sweep audits once an hour and says what it found; honest commands after tampering leave the finding in place" {
	honest_history
	ok daicho doctor --audit
	sql "UPDATE tasks SET state = 'verified' WHERE id = 3"
	# Within the hour of the last audit: the sweep does not audit again.
	capture daicho sweep
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ "$stderr" != *"no event explains"* ]] || fail "audited within the hour: $stderr"
	assert_needs_no_tamper
	# An hour later it does, and says so.
	DAICHO_NOW_MS=$(($(date +%s%3N) + 2 * 3600000)) capture daicho sweep
	[ "$status" -eq 0 ] || fail "$stderr"
	[[ "$stderr" == *"the audit found 1 row that no event explains"* ]] || fail "$stderr"
	daicho status --json | jq -e '.needs_you[] | select(.kind == "tampered" and .findings == 1)' >/dev/null ||
		fail "$(daicho status)"
	# More honest work does not hide it.
	daicho add later >/dev/null
	audit_names "task #3 is verified"
}

@test "doctor --audit: an agent may run it (it only reads and records); bad options are refused" {
	honest_history
	DAICHO_AGENT=w1 ok daicho doctor --audit
	refused 2 daicho doctor --audit extra
	refused 2 daicho doctor --audits
}
