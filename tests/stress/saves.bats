#!/usr/bin/env bats
# Concurrent saves lose nothing.
#
# 64 tasks each claimed by its own agent (aN) and one task claimed by the
# agent "shared". Then, released at once through a fifo barrier, 128 save
# processes run together: 64 on the 64 distinct tasks (each by its holder,
# saving "distinct N") and 64 on the one shared task (all by "shared",
# saving "shared N"). Afterwards nothing is lost, the shared task's result
# is the last save, and its log has every save.

load common

N=64

setup_file() {
	stress_setup "$BATS_FILE_TMPDIR"
	add_tasks $((N + 1)) 3
	local i k ids shared ready
	mapfile -t ids <"$T/batch.ids"
	shared=${ids[N]}
	echo "$shared" >"$T/shared"
	for ((i = 1; i <= N; i++)); do
		[ "$("$D" --as "a$i" claim "${ids[i - 1]}")" = "${ids[i - 1]}" ]
	done
	[ "$("$D" --as shared claim "$shared")" = "$shared" ]

	mkdir "$T/s"
	mkfifo "$T/go"
	for ((k = 1; k <= 2 * N; k++)); do
		(
			: >"$T/s/ready.$k"
			read -r _ <"$T/go" || true
			t0=$EPOCHREALTIME
			if ((k <= N)); then
				"$D" --as "a$k" save "${ids[k - 1]}" <<<"distinct $k"
			else
				"$D" --as shared save "$shared" <<<"shared $((k - N))"
			fi
			rc=$?
			t1=$EPOCHREALTIME
			echo "$rc ${t0/./} ${t1/./}" >"$T/s/rc.$k"
		) 2>"$T/s/err.$k" &
	done
	# Release them together once all 128 are waiting at the barrier.
	while :; do
		ready=("$T"/s/ready.*)
		((${#ready[@]} == 2 * N)) && break
		nap 0.02
	done
	nap 0.2
	exec {go}>"$T/go"
	nap 0.2
	exec {go}>&-
	wait
}

setup() {
	export LC_ALL=C
}

@test "saves: all 128 concurrent saves succeeded, quietly" {
	local k bad=() first last rc t0 t1 err
	for ((k = 1; k <= 2 * N; k++)); do
		rc=none
		[ -s "$T/s/rc.$k" ] && read -r rc t0 t1 <"$T/s/rc.$k"
		[ "$rc" = 0 ] || bad+=("save #$k: exit $rc")
		if [ -s "$T/s/err.$k" ]; then
			err=$(<"$T/s/err.$k")
			bad+=("save #$k: $err")
		fi
	done
	[ "${#bad[@]}" -eq 0 ] || fail_with "failed saves:" "${bad[@]}"
	# How together they ran: from the first start to the last end.
	first=$(cat "$T"/s/rc.* | awk '{ print $2 }' | sort -n | head -n 1)
	last=$(cat "$T"/s/rc.* | awk '{ print $3 }' | sort -n | tail -n 1)
	printf '# 128 saves ran within %d ms (longest %d ms)\n' $(((last - first) / 1000)) \
	    "$(cat "$T"/s/rc.* | awk '{ d = ($3 - $2) / 1000; if (d > m) m = d } END { print int(m) }')" >&3
}

@test "saves: 64 saves on 64 distinct tasks: every result present" {
	local i id ids
	run q "SELECT count(*), count(DISTINCT task) FROM saves WHERE task <> $(cat "$T/shared")"
	[ "$output" = "$N|$N" ] || fail_with "saves on distinct tasks (rows|tasks): $output"
	run q "SELECT t.id, $(sql_text s.result) FROM tasks t LEFT JOIN saves s ON s.task = t.id
	       WHERE t.id <> $(cat "$T/shared")
	         AND (s.id IS NULL OR $(sql_text s.result) <> 'distinct ' || t.id || $(sql_newline))"
	[ -z "$output" ] || fail_with "missing or wrong (task, result):" "$output"
	mapfile -t ids <"$T/batch.ids"
	# And `result` gives them back (every 8th, to keep it quick).
	for ((i = 1; i <= N; i += 8)); do
		id=${ids[i - 1]}
		"$D" result "$id" >"$T/result"
		printf 'distinct %d\n' "$i" | cmp - "$T/result" || fail_with "result $id: $(cat "$T/result")"
	done
}

@test "saves: 64 saves on one task: 64 rows, 64 events, the last writer wins" {
	local s k
	s=$(cat "$T/shared")
	run q "SELECT count(*) FROM saves WHERE task = $s"
	[ "$output" -eq "$N" ] || fail_with "saves rows on the shared task: $output, want $N"
	run q "SELECT count(*) FROM events WHERE task = $s AND kind = 'save'"
	[ "$output" -eq "$N" ] || fail_with "save events on the shared task: $output, want $N"
	# Every writer's content is there, once.
	q "SELECT rtrim($(sql_text result), $(sql_newline)) FROM saves WHERE task = $s" |
	    sort >"$T/shared_saves"
	[ "$(q "SELECT count(*) FROM saves WHERE task = $s AND
	        $(sql_text result) <> rtrim($(sql_text result), $(sql_newline)) || $(sql_newline)")" -eq 0 ]
	for ((k = 1; k <= N; k++)); do echo "shared $k"; done | sort | diff - "$T/shared_saves"
	# The result is the save with the highest id.
	"$D" result "$s" >"$T/result"
	[ "$(q "SELECT count(*) FROM saves WHERE task = $s AND id = (SELECT max(id) FROM saves
	       WHERE task = $s) AND $(sql_bytes_equal_file result "$T/result")")" = 1 ] ||
		fail_with "result is not the save with the highest id"
	# Each save event names its own save row.
	run q "SELECT count(DISTINCT $(json_field save e.detail)) FROM events e
	       JOIN saves v ON v.id = CAST($(json_field save e.detail) AS bigint) AND v.task = e.task
	       WHERE e.task = $s AND e.kind = 'save'"
	[ "$output" -eq "$N" ] || fail_with "save events matching distinct save rows: $output"
}

@test "saves: log shows every save of the shared task" {
	local s
	s=$(cat "$T/shared")
	run "$D" log "$s"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' save ' <<<"$output")" -eq "$N" ] || fail_with "log $s:" "$output"
	run "$D" log "$s" --json
	[ "$status" -eq 0 ]
	[ "$(jq '[.[] | select(.kind == "save")] | length' <<<"$output")" -eq "$N" ] ||
	    fail_with "log --json $s:" "$output"
	if ! backend_is_postgresql; then
		run q "PRAGMA integrity_check"
		[ "$output" = ok ]
	fi
}
