#!/usr/bin/env bats
# kill -9 at random moments never corrupts the ledger or breaks an invariant.
#
# 200 times: start a writer and kill -9 it at a random moment of its life:
# after a delay drawn from 0 to max(30 ms, 1.2 x how long that kind of writer
# takes when left alone, measured first). The writers take turns:
#   - `add --batch` of 300 tasks (titles "big 1".."big 300"),
#   - `add --batch` of 7 tasks (titles "small 1".."small 7"),
#   - a worker loop (worker.sh: claim --next --lease 1s / save / report) in
#     its own session, killed with its daicho child by process group,
#   - a single `claim --next --lease 30m`,
#   - a `save` of a 256 KB result on a task the agent "holder" holds,
#   - a `report` of a task "holder" holds (a new one each time).
# Afterwards the ledger passes PRAGMA integrity_check and the invariants hold.
# DAICHO_STRESS_CRASHES (default 200) and DAICHO_STRESS_SEED steer it.

load common

CRASHES=${DAICHO_STRESS_CRASHES:-200}
BIG=300
SMALL=7
MODES=6

# writer MODE N: start writer kind MODE in the background (N names it);
# sets pid.
writer() {
	case $1 in
	0) "$D" add --batch "$T/big.jsonl" >/dev/null 2>>"$T/writers.err" & ;;
	1) "$D" add --batch "$T/small.jsonl" >/dev/null 2>>"$T/writers.err" & ;;
	2) setsid "$WORKER" "$D" "c$2" 1s "$T/w" & ;;
	3) "$D" --as "c$2" claim --next --lease 30m >/dev/null 2>>"$T/writers.err" & ;;
	4)
		"$D" --as holder save "${held[h++ % ${#held[@]}]}" -f "$T/result.bin" \
		    2>>"$T/writers.err" &
		;;
	5) "$D" --as holder report "${held[r++]}" 2>>"$T/writers.err" & ;;
	esac
	pid=$!
}

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	local seed=${DAICHO_STRESS_SEED:-$$} i pid status pause mode t0 t1 ms
	local killed=0 exited=0 start end window=()
	RANDOM=$seed
	echo "$seed" >"$T/seed"
	for ((i = 1; i <= BIG; i++)); do
		printf '{"title":"big %d","body":"the prompt of big task %d"}\n' "$i" "$i"
	done >"$T/big.jsonl"
	for ((i = 1; i <= SMALL; i++)); do
		printf '{"title":"small %d","labels":["small"]}\n' "$i"
	done >"$T/small.jsonl"
	# Something to claim from the start, and tasks "holder" holds to save
	# on and report.
	"$D" add --batch "$T/small.jsonl" >/dev/null
	held=() h=0 r=0
	for ((i = 0; i <= CRASHES / MODES + 1; i++)); do
		held+=("$("$D" add "held $i" --max-attempts 100)")
		"$D" --as holder claim "${held[i]}" >/dev/null
	done
	head -c 262144 /dev/urandom >"$T/result.bin"
	mkdir "$T/w"

	# How long each kind of writer lives when left alone (the worker loop:
	# one claim/save/report round, about three single commands).
	for mode in 0 1 3 4 5; do
		t0=$(now_us)
		writer "$mode" 0
		wait "$pid"
		t1=$(now_us)
		ms=$(((t1 - t0) * 12 / 10000))
		window[mode]=$((ms > 30 ? ms : 30))
	done
	window[2]=$((3 * window[3]))
	echo "${window[*]}" >"$T/windows"

	start=$(now_us)
	for ((i = 1; i <= CRASHES; i++)); do
		mode=$((i % MODES))
		writer "$mode" "$i"
		ms=$((RANDOM % (window[mode] + 1)))
		printf -v pause '%d.%03d' $((ms / 1000)) $((ms % 1000))
		nap "$pause"
		status=0
		if ((mode == 2)); then
			kill_worker "$pid" || status=1
		else
			kill -9 "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || status=$?
		fi
		if ((status == 128 + 9 || (mode == 2 && status == 0))); then
			killed=$((killed + 1))
		else
			exited=$((exited + 1))
		fi
	done
	end=$(now_us)
	echo "$killed $exited $(((end - start) / 1000))" >"$T/counts"
}

setup() {
	export LC_ALL=C
}

@test "crash: 200 writers killed with kill -9 at random moments" {
	local killed exited ms
	read -r killed exited ms <"$T/counts"
	printf '# kill windows (ms) for big batch, small batch, worker, claim, save, report: %s\n' \
	    "$(cat "$T/windows")" >&3
	printf '# seed %s: %d crashes in %d ms: %d killed, %d had already exited; %s big and %s small batches, %s saves, %s reports landed; states: %s\n' \
	    "$(cat "$T/seed")" "$CRASHES" "$ms" "$killed" "$exited" \
	    "$(q "SELECT count(*) FROM tasks WHERE title = 'big 1'")" \
	    "$(q "SELECT count(*) FROM tasks WHERE title = 'small 1'")" \
	    "$(q "SELECT count(*) FROM saves")" "$(q "SELECT count(*) FROM events WHERE kind = 'report'")" \
	    "$(q "SELECT state || ' ' || count(*) FROM tasks GROUP BY state" | tr '\n' ' ')" >&3
	[ $((killed + exited)) -eq "$CRASHES" ]
	# Many writers died mid-run, not after finishing (a sanity check of
	# the test itself: the delays are not all too long).
	[ "$killed" -ge $((CRASHES / 5)) ]
}

@test "crash: the ledger passes integrity and foreign key checks" {
	sqlite_only "PRAGMA integrity_check and foreign_key_check (PostgreSQL enforces foreign keys as it writes)"
	run q "PRAGMA integrity_check"
	[ "$output" = ok ] || fail_with "integrity_check: $output"
	run q "PRAGMA foreign_key_check"
	[ -z "$output" ] || fail_with "foreign_key_check: $output"
}

@test "crash: no claimed task without owner and lease" {
	run q "SELECT id, owner, lease_expires_ms FROM tasks
	       WHERE state = 'claimed' AND (owner IS NULL OR lease_expires_ms IS NULL)"
	[ -z "$output" ] || fail_with "claimed without owner or lease:" "$output"
}

@test "crash: batches are all or nothing" {
	local n
	n=$(q "SELECT count(*) FROM tasks")
	run q "SELECT count(*) FROM tasks WHERE title LIKE 'big %'"
	[ $((output % BIG)) -eq 0 ] || fail_with "big tasks: $output, not a multiple of $BIG"
	run q "SELECT count(*) FROM tasks WHERE title LIKE 'small %'"
	[ $((output % SMALL)) -eq 0 ] || fail_with "small tasks: $output, not a multiple of $SMALL"
	# Every line of a batch landed as often as every other.
	run q "SELECT count(DISTINCT c) FROM (SELECT count(*) AS c FROM tasks
	       WHERE title LIKE 'big %' GROUP BY title) AS per_title"
	[ "$output" -le 1 ]
	run q "SELECT count(DISTINCT c) FROM (SELECT count(*) AS c FROM tasks
	       WHERE title LIKE 'small %' GROUP BY title) AS per_title"
	[ "$output" -eq 1 ]
	# A batch's labels landed with it.
	[ "$(q "SELECT count(*) FROM labels WHERE label = 'small'")" -eq \
	    "$(q "SELECT count(*) FROM tasks WHERE title LIKE 'small %'")" ]
	[ "$n" -gt 0 ]
}

@test "crash: every task has its add event and every add event its task" {
	run q "SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM events WHERE kind = 'add'),
	              (SELECT count(DISTINCT task) FROM events WHERE kind = 'add')"
	local n
	n=$(q "SELECT count(*) FROM tasks")
	[ "$output" = "$n|$n|$n" ] || fail_with "tasks|add events|tasks with add: $output"
	run q "SELECT id FROM tasks t WHERE NOT EXISTS
	         (SELECT 1 FROM events e WHERE e.task = t.id AND e.kind = 'add') LIMIT 10"
	[ -z "$output" ] || fail_with "tasks without an add event:" "$output"
	run q "SELECT id, task FROM events e WHERE kind = 'add' AND NOT EXISTS
	         (SELECT 1 FROM tasks t WHERE t.id = e.task) LIMIT 10"
	[ -z "$output" ] || fail_with "add events without a task:" "$output"
}

@test "crash: claims, saves and reports each left both their event and their state" {
	# attempts counts claims begun (nothing is released here): it equals
	# the task's claim events, so every claim event's task has attempts >= 1.
	run q "SELECT t.id, t.attempts, count(e.id) FROM tasks t
	         LEFT JOIN events e ON e.task = t.id AND e.kind = 'claim'
	       GROUP BY t.id HAVING t.attempts <> count(e.id) LIMIT 10"
	[ -z "$output" ] || fail_with "attempts vs claim events (id attempts claims):" "$output"
	run q "SELECT e.task FROM events e JOIN tasks t ON t.id = e.task
	       WHERE e.kind = 'claim' AND t.attempts < 1 LIMIT 10"
	[ -z "$output" ]
	# A task never claimed is open; an open task was never claimed.
	run q "SELECT id, state, attempts FROM tasks
	       WHERE (state = 'open') <> (attempts = 0) LIMIT 10"
	[ -z "$output" ] || fail_with "open vs claimed (id state attempts):" "$output"
	# A claimed task's owner is its latest claimer.
	run q "SELECT t.id FROM tasks t WHERE t.state = 'claimed' AND t.owner IS DISTINCT FROM
	         (SELECT actor FROM events e WHERE e.task = t.id AND e.kind = 'claim'
	          ORDER BY e.id DESC LIMIT 1) LIMIT 10"
	[ -z "$output" ] || fail_with "claimed tasks whose owner is not the last claimer:" "$output"
	# Reported tasks and report events match one to one.
	run q "SELECT (SELECT count(*) FROM tasks WHERE state = 'reported'),
	              (SELECT count(*) FROM events WHERE kind = 'report'),
	              (SELECT count(*) FROM events e JOIN tasks t ON t.id = e.task
	               WHERE e.kind = 'report' AND t.state = 'reported')"
	local r
	r=$(q "SELECT count(*) FROM tasks WHERE state = 'reported'")
	[ "$output" = "$r|$r|$r" ] || fail_with "reported tasks|report events|on reported tasks: $output"
	# Every save row has its event and every save event its row.
	run q "SELECT (SELECT count(*) FROM saves), (SELECT count(*) FROM events WHERE kind = 'save'),
	              (SELECT count(*) FROM events e JOIN saves s
	               ON s.id = CAST($(json_field save e.detail) AS bigint) AND s.task = e.task
	               WHERE e.kind = 'save')"
	local s
	s=$(q "SELECT count(*) FROM saves")
	[ "$output" = "$s|$s|$s" ] || fail_with "saves|save events|matched: $output"
	# No torn save: each is the holder's whole 256 KB, or a worker's line.
	run q "SELECT s.id, s.task, a.name, length(s.result) FROM saves s
	         JOIN agents a ON a.id = s.agent
	       WHERE NOT ((a.name = 'holder' AND $(sql_bytes_equal_file s.result "$T/result.bin"))
	              OR $(sql_text s.result) = 'task ' || s.task || ' by ' || a.name || $(sql_newline))
	       LIMIT 10"
	[ -z "$output" ] || fail_with "torn or foreign saves (id task agent bytes):" "$output"
	# Only tasks that were claimed have saves.
	run q "SELECT s.task FROM saves s JOIN tasks t ON t.id = s.task WHERE t.attempts = 0 LIMIT 10"
	[ -z "$output" ]
	# A lease-expired takeover is followed by its claim.
	run q "SELECT x.id FROM events x WHERE x.kind = 'lease-expired' AND NOT EXISTS
	         (SELECT 1 FROM events c WHERE c.task = x.task AND c.kind = 'claim' AND c.id > x.id)
	       LIMIT 10"
	[ -z "$output" ] || fail_with "lease-expired events without the claim that took over:" "$output"
}

@test "crash: writers left no error but 'nothing ready', and daicho still works" {
	run grep -Eih 'database is locked|busy|malformed|corrupt|SQLITE' "$T/writers.err" "$T"/w/*.err
	[ "$status" -eq 1 ] || fail_with "errors from writers:" "$output"
	run "$D" ls --limit 1
	[ "$status" -eq 0 ]
	run "$D" add "after the crashes"
	[ "$status" -eq 0 ]
	local id=$output
	run "$D" --as survivor claim "$id"
	[ "$status" -eq 0 ]
	[ "$output" = "$id" ]
	echo survived | "$D" --as survivor save "$id"
	"$D" --as survivor report "$id"
	[ "$(q "SELECT state FROM tasks WHERE id = $id")" = reported ]
	# SQLite's own check of the file (PostgreSQL keeps its pages itself).
	if ! backend_is_postgresql; then
		run q "PRAGMA integrity_check"
		[ "$output" = ok ]
	fi
}
