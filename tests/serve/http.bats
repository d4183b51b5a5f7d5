#!/usr/bin/env bats
# daicho serve over HTTP: the pages, the JSON API against the CLI's --json,
# the login and the guards on actions, bad input answered with a clean 4xx
# and the ledger unchanged, live updates, and where it may listen.

load helpers

@test "serve prints its URL; every page answers 200 with HTML, the assets with their types" {
	daicho add "first" --done-when saved >/dev/null
	daicho --as w1 claim 1 >/dev/null
	echo "the result" | daicho --as w1 save 1 -f - --tokens-in 7 --cost 0.5 --model m1
	daicho --as w1 report 1 >/dev/null
	daicho sweep >/dev/null
	[ "$(task_field 1 state)" = verified ]
	start_server
	[[ "$LOOPBACK_URL" =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || fail "printed: $LOOPBACK_URL"
	[[ "$URL" =~ ^http://d-[0-9a-f]{16}\.localhost:[0-9]+$ ]] || fail "the person's address: $URL"
	for page in / /agents /tasks /tasks/1 /graph /usage "/tasks?state=open&sort=title&order=desc"; do
		http GET "$page"
		[ "$status" = 200 ] || fail "$page: $status"
		[[ "$output" == "<!DOCTYPE html>"* ]] || fail "$page is not a page: ${output:0:200}"
	done
	# The task page: its verdict with the evidence, its save, its history.
	http GET /tasks/1
	[[ "$output" == *'class="verdict"'* ]] || fail "no verdict: $output"
	[[ "$output" == *'<code>saved</code>'* ]]
	# A built-in check has no exit status: a dash, never -1.
	[[ "$output" == *'<code>saved</code></td><td>'*'pass'*'</td><td>&mdash;</td>'* ]] || fail "saved's exit: $output"
	[[ "$output" != *'<td>-1</td>'* ]] || fail "an exit status of -1 shown"
	[[ "$output" == *'<table id="saves">'*'>11<'*'>7<'*'0.5000'*m1* ]] || fail "no save row"
	[[ "$output" == *'>verified<'* ]]
	# Its history in sentences, as 'daicho log' says them, never raw JSON.
	[[ "$output" == *'<table id="history">'*'>report</td><td>'*' reported #1'* ]] || fail "history: $output"
	[[ "$(sed -n '/<table id="history">/,/<\/table>/p' <<<"$output")" != *'{&quot;'* ]] ||
		fail "raw JSON in the history: $output"
	http GET /static/app.js
	[ "$status" = 200 ]
	[[ "$output" == *EventSource* ]]
	http GET /graph.svg
	[ "$status" = 200 ]
	[[ "$output" == "<svg"* ]]
}

@test "the API gives what the commands' --json give" {
	daicho add "one" --label a >/dev/null
	daicho add "two" --after 1 >/dev/null
	daicho --as w1 claim 1 >/dev/null
	daicho --as w1 save 1 -f - --tokens-in 10 --tokens-out 5 --cost 0.25 --model m1 <<<"result"
	start_server
	for pair in "ls|ls" "show/1|show 1" "log/1|log 1" "usage?by=model|usage --by model" \
		"ls?state=open|ls --state open" "approvals?all=1|approvals --all" "gates|gate ls"; do
		http GET "/api/${pair%%|*}"
		[ "$status" = 200 ] || fail "/api/${pair%%|*}: $status $output"
		# shellcheck disable=SC2086
		diff <(jq -S . <<<"$output") <(daicho ${pair##*|} --json | jq -S .) ||
			fail "/api/${pair%%|*} differs from daicho ${pair##*|} --json"
	done
	http GET /api/status
	[ "$status" = 200 ]
	jq -e '.needs_you | type == "array"' <<<"$output" >/dev/null || jq -e 'type == "object"' <<<"$output" >/dev/null
}

@test "bad input: unknown ids and paths, bad JSON, huge bodies, path traversal: a clean 4xx each, the ledger unchanged" {
	blocked_task_and_server
	snapshot_ledger
	local auth=(-b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF")
	# request|expected status|curl arguments
	while IFS='|' read -r method path want args; do
		# shellcheck disable=SC2086
		http "$method" "$path" $args
		[ "$status" = "$want" ] || fail "$method $path: expected $want, got $status ($output)"
		if [[ "$path" == /api/* ]]; then
			jq -e --argjson s "$want" '.status == $s and (.error | type == "string")' <<<"$output" >/dev/null ||
				fail "$method $path: not a JSON error: $output"
		fi
	done <<-EOF
		GET|/api/show/999|404|
		GET|/api/show/abc|400|
		GET|/api/show|400|
		GET|/api/log/-1|400|
		GET|/api/nothing|404|
		GET|/api/ls?bogus=1|400|
		GET|/api/ls?ready=maybe|400|
		GET|/api/events?follow=1|400|
		GET|/tasks/999|404|
		GET|/tasks/x|400|
		GET|/no/such/page|404|
		GET|/api/show/../../../etc/passwd|400|
		GET|/static/../../etc/passwd|400|
		GET|/tasks/..%2f..%2fetc%2fpasswd|400|
		GET|/api/show/%2e%2e%2fledger.db|400|
		DELETE|/api/ls|405|
		PUT|/|405|
		POST|/api/ls|405|
		GET|/api/unblock/1|405|
	EOF
	http POST /api/unblock/999 "${auth[@]}"
	[ "$status" = 404 ] || fail "unknown task: $status $output"
	http POST /api/approve/999 "${auth[@]}"
	[ "$status" = 404 ] || fail "unknown approval: $status $output"
	http POST /api/deny/1 "${auth[@]}" -H 'Content-Type: application/json' --data '{"reason": '
	[ "$status" = 400 ] || fail "bad JSON: $status $output"
	http POST /api/deny/1 "${auth[@]}" -H 'Content-Type: application/json' --data '{"reason": 5}'
	[ "$status" = 400 ] || fail "a number for a string: $status $output"
	http POST /api/deny/1 "${auth[@]}" -H 'Content-Type: application/json' --data '{"force": "1"}'
	[ "$status" = 400 ] || fail "a field deny does not take: $status $output"
	head -c 10000000 /dev/zero | tr '\0' a >"$TEST_ROOT/huge"
	http POST /api/unblock/1 "${auth[@]}" --data-binary "@$TEST_ROOT/huge"
	[ "$status" = 413 ] || fail "huge body: $status"
	http POST /api/unblock/1 "${auth[@]}" -H 'Transfer-Encoding: chunked' --data-binary "@$TEST_ROOT/huge"
	[ "$status" = 413 ] || fail "huge chunked body: $status"
	assert_ledger_unchanged
	# And the server is still there.
	http GET /api/show/1
	[ "$status" = 200 ]
}

@test "a GET never writes nor hangs: options that follow or change the ledger are refused, and the server goes on" {
	daicho add "one" >/dev/null
	daicho --as w1 claim 1 >/dev/null
	daicho --as w2 wait --for 'a reply' >/dev/null
	start_server
	snapshot_ledger
	# Each refused with a 400 at once (curl gives up after 5 s).
	for path in "/api/status?watch=1" "/api/events?follow=1" "/api/ls?mine=1" \
		"/api/show/1?json=1" "/api/agents?as=w1"; do
		http GET "$path" --max-time 5
		[ "$status" = 400 ] || fail "GET $path: $status ($output)"
	done
	# Handing a role over is an agent's act, not a route.
	http GET "/api/handoff?from=w1&to=w2" --max-time 5
	[ "$status" = 404 ] || fail "GET /api/handoff: $status ($output)"
	assert_ledger_unchanged
	# The server still answers.
	http GET /api/ls --max-time 5
	[ "$status" = 200 ] || fail "the server stopped answering: $status"
}

@test "actions: no cookie is 401, no or a wrong CSRF token or another origin is 403; the ledger unchanged" {
	blocked_task_and_server
	snapshot_ledger
	http POST /api/unblock/1
	[ "$status" = 401 ] || fail "no cookie: $status"
	http POST /api/unblock/1 -H "X-CSRF-Token: $CSRF"
	[ "$status" = 401 ] || fail "a CSRF token without the cookie: $status"
	http POST /api/unblock/1 -b "daicho_session=$CSRF" -H "X-CSRF-Token: $CSRF"
	[ "$status" = 401 ] || fail "a made-up cookie: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar"
	[ "$status" = 403 ] || fail "no CSRF token: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: 0123"
	[ "$status" = 403 ] || fail "a wrong CSRF token: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" --data "csrf=wrong" -H 'Content-Type: application/x-www-form-urlencoded'
	[ "$status" = 403 ] || fail "a wrong CSRF form field: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF" -H "Origin: http://evil.example"
	[ "$status" = 403 ] || fail "another origin: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF" -H "Sec-Fetch-Site: cross-site"
	[ "$status" = 403 ] || fail "cross-site: $status"
	http GET /api/ls -H "Host: evil.example:80"
	[ "$status" = 421 ] || fail "a rebound DNS name (Host): $status"
	assert_ledger_unchanged
}

@test "the login URL works once; an action with the session is the person's, recorded with via web" {
	blocked_task_and_server
	run curl -s -o /dev/null -w '%{http_code}' "$LOGIN"
	[ "$output" = 403 ] || fail "a second login with the same token: $output"
	run curl -s -o /dev/null -w '%{http_code}' "${LOGIN%?}0"
	[ "$output" = 403 ]
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF"
	[ "$status" = 200 ] || fail "unblock: $status $output"
	[ "$(jq -c . <<<"$output")" = '{"id":1,"to":"owner"}' ]
	[ "$(task_field 1 state)" = claimed ]
	run daicho log 1 --json
	jq -e --arg who "$HUMAN" '.[-1] | .kind == "unblock" and .actor == $who and .detail.via == "web"' <<<"$output" >/dev/null ||
		fail "the event: $(jq -c '.[-1]' <<<"$output")"
	# A form post (the page's own buttons) answers with a redirect.
	daicho --as w1 block 1 --reason "again" >/dev/null
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF"
	[ "$status" = 303 ] || fail "form unblock: $status $output"
	[ "$(task_field 1 state)" = claimed ]
	# The redirect goes back to a page of this server, never elsewhere,
	# whatever the Referer says ("//host" is another server's address).
	daicho --as w1 block 1 --reason "once more" >/dev/null
	run curl -s -o /dev/null -w '%{redirect_url}' -b "$TEST_ROOT/jar" -H "Origin: $URL" \
		-H "Referer: $URL//evil.example/x" --data "csrf=$CSRF" "$URL/api/unblock/1"
	[ "$output" = "$URL/" ] || fail "redirected to $output"
}

@test "the dashboard answers a blocked task in one step: the answer goes to its holder and into its prompt" {
	blocked_task_and_server
	# The page's form has the field.
	http GET / -b "$TEST_ROOT/jar"
	[[ "$output" == *'action="/api/unblock/1"'*'name="answer"'* ]] || fail "no answer field: $output"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&answer=use+the+staging+key"
	[ "$status" = 303 ] || fail "unblock: $status $output"
	[ "$(task_field 1 state)" = claimed ]
	run daicho --as w1 inbox
	[[ "$output" == *'#1 is yours again, answered: use the staging key (you asked: stuck)'* ]] || fail "inbox: $output"
	[[ "$(daicho prompt 1)" == *$'Q: stuck\nA: use the staging key' ]] || fail "prompt: $(daicho prompt 1)"
	# A field unblock does not take is still refused.
	daicho --as w1 block 1 --reason "again" >/dev/null
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&reason=x"
	[ "$status" = 400 ] || fail "reason on unblock: $status"
	[ "$(task_field 1 state)" = blocked ]
}

# mutant: the reply route's id_option dropped (the ID taken as TO), or
# read's marking skipped: the reply's thread or the unread count fails.
@test "the dashboard replies to a message and marks one read, as the person; bad input is a 4xx and changes nothing" {
	messages_and_server
	login_cookie "$TEST_ROOT/jar"
	# NEEDS YOU has both, each with a reply form and a button to mark it read.
	http GET / -b "$TEST_ROOT/jar"
	[[ "$output" == *'action="/api/reply/1"'*'name="text"'*'action="/api/read/1"'* ]] || fail "no forms: $output"
	[[ "$output" == *'action="/api/read/2"'* ]] || fail "no read form for #2: $output"
	# Bad input: no text, a field reply does not take, a message of
	# nobody's, a bad id; nothing is sent or marked.
	snapshot_ledger
	http POST /api/reply/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF"
	[ "$status" = 400 ] && [[ "$output" == *"/api/reply needs the field &#39;text&#39;"* ]] || fail "no text: $status $output"
	http POST /api/reply/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&text=no&to=w2"
	[ "$status" = 400 ] || fail "to on reply: $status $output"
	http POST /api/reply/99 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&text=no"
	[ "$status" = 404 ] || fail "reply to #99: $status $output"
	http POST /api/read/99 -b "$TEST_ROOT/jar" --data "csrf=$CSRF"
	[ "$status" = 404 ] || fail "read #99: $status $output"
	http POST /api/read/x -b "$TEST_ROOT/jar" --data "csrf=$CSRF"
	[ "$status" = 400 ] || fail "read x: $status $output"
	assert_ledger_unchanged
	# Without the session, nothing.
	http POST /api/read/2 -H "X-CSRF-Token: $CSRF"
	[ "$status" = 401 ] || fail "read without a cookie: $status"
	# The reply goes to w1 as the person's, threaded under its question.
	http POST /api/reply/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&text=yes%2C+after+the+backup"
	[ "$status" = 303 ] || fail "reply: $status $output"
	run daicho --as w1 inbox --json
	[ "$(jq -r '.[0].from' <<<"$output")" = "$HUMAN" ] || fail "$output"
	[ "$(jq -r '.[0].text' <<<"$output")" = "yes, after the backup" ] || fail "$output"
	[ "$(jq -r '.[0].thread[0].text' <<<"$output")" = "may I drop the old table?" ] || fail "$output"
	# A reply of "-" is that text, not a read of the server's stdin.
	http POST /api/reply/1 -b "$TEST_ROOT/jar" --data "csrf=$CSRF&text=-"
	[ "$status" = 303 ] || fail "reply '-': $status $output"
	[ "$(daicho --as w1 inbox --json | jq -r '.[0].text')" = "-" ]
	# Marking #2 read leaves #1 unread (a reply is not a read).
	http POST /api/read/2 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF"
	[ "$status" = 200 ] && [ "$(jq -c . <<<"$output")" = '{"id":2,"read":true}' ] || fail "read: $status $output"
	[ "$(daicho status --json | jq -c '[.needs_you[] | select(.kind == "message") | .id]')" = '[1]' ]
	# Read once, a second read is a 404.
	http POST /api/read/2 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF"
	[ "$status" = 404 ] || fail "read twice: $status $output"
}

# mutant: the cookie's Max-Age dropped (a session cookie, gone with the
# browser), the link's hash compared as the token, or --revoke not read by
# the server: the Max-Age, the hash's login or the revoked action fails.
@test "a login lasts --session-ttl across browser restarts; --login-url gives a second browser a fresh link once; --revoke logs every browser out" {
	blocked_task_and_server
	# The first browser's cookie is kept for the session's life (12h).
	[ "$(awk '$6 == "daicho_session" { print ($5 > 0) }' "$TEST_ROOT/jar")" = 1 ] ||
		fail "a session cookie, not kept: $(cat "$TEST_ROOT/jar")"
	# A second browser: a fresh link, printed to the person's terminal.
	on_pty daicho serve --login-url
	[ "$status" -eq 0 ] || fail "login-url: $status $output"
	local link=${output%$'\r'}
	[[ "$link" == "$URL/login?token="* ]] || fail "not this dashboard's: $link"
	# The ledger keeps its hash only: the hash logs nobody in.
	local kept
	kept=$(sql "SELECT value FROM settings WHERE key = 'web-login'")
	[ -n "$kept" ] && [[ "$kept" != *"${link##*token=}"* ]] || fail "the token is in the ledger: $kept"
	run curl -s -o /dev/null -w '%{http_code}' -c "$TEST_ROOT/thief" "$URL/login?token=${kept%% *}"
	[ "$output" = 403 ] || fail "the kept hash logged in: $output"
	run curl -s -D - -o /dev/null -c "$TEST_ROOT/jar2" "$link"
	[[ "$output" == *"Max-Age=43200"* ]] || fail "no Max-Age: $output"
	run curl -s -o /dev/null -w '%{http_code}' "$link"
	[ "$output" = 403 ] || fail "the link worked twice: $output"
	local CSRF2
	CSRF2="$(curl -s -b "$TEST_ROOT/jar2" "$URL/" | grep -o 'name="csrf-token" content="[0-9a-f]*' | cut -d'"' -f4)"
	[ -n "$CSRF2" ] || fail "the second browser is not logged in"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar2" -H "X-CSRF-Token: $CSRF2"
	[ "$status" = 200 ] || fail "the second browser cannot act: $status $output"
	[ "$(daicho events --json | jq -r '[.[] | select(.kind == "web-login")] | length')" = 1 ]
	# Revoked from the terminal: neither browser acts, and an unused link dies.
	daicho --as w1 block 1 --reason again >/dev/null
	on_pty daicho serve --login-url
	[ "$status" -eq 0 ] || fail "login-url: $status $output"
	local unused=$output
	on_pty daicho serve --revoke
	[ "$status" -eq 0 ] && [[ "$output" == "every dashboard session ended"* ]] || fail "revoke: $status $output"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar2" -H "X-CSRF-Token: $CSRF2"
	[ "$status" = 401 ] || fail "revoked, the second browser still acts: $status"
	http POST /api/unblock/1 -b "$TEST_ROOT/jar" -H "X-CSRF-Token: $CSRF"
	[ "$status" = 401 ] || fail "revoked, the first browser still acts: $status"
	run curl -sS -o /dev/null -w "%{http_code}" "$unused"
	[ "$output" = 403 ] || fail "a link made before --revoke still logs in: $output ($unused)"
	[ "$(task_field 1 state)" = blocked ]
	# A link made after it works.
	on_pty daicho serve --login-url
	run curl -s -o /dev/null -w '%{http_code}' -c "$TEST_ROOT/jar3" "${output%$'\r'}"
	[ "$output" = 303 ] || fail "a new link after --revoke: $output"
}

# mutant: serve_auth_login() without its revoked_ms test: the start's
# unused link still logs in after a revoke.
@test "serve --revoke also ends the login link the start printed, if it was never used" {
	start_server
	on_pty daicho serve --revoke
	[ "$status" -eq 0 ] || fail "revoke: $status $output"
	run curl -s -o /dev/null -w '%{http_code}' "$LOGIN"
	[ "$output" = 403 ] || fail "the start's link still logs in after --revoke: $output"
}

@test "serve --login-url and --revoke: a person's; no dashboard running is exit 3; bad --session-ttl and mixed options are usage errors" {
	snapshot_ledger
	on_pty daicho serve --login-url
	[ "$status" -eq 3 ] && [[ "$output" == *"no dashboard that a person started is running on this ledger"* ]] ||
		fail "$status: $output"
	run --separate-stderr daicho serve --login-url
	[ "$status" -eq 6 ] || fail "an agent got a link: $status $output"
	run --separate-stderr daicho --as w1 serve --revoke
	[ "$status" -eq 6 ] || fail "an agent revoked: $status $output"
	on_pty daicho serve --login-url --revoke
	[ "$status" -eq 2 ] && [[ "$output" == *"--login-url and --revoke go alone"* ]] || fail "$status: $output"
	for bad in 30s 91d soon; do
		run --separate-stderr daicho serve --session-ttl "$bad" --listen 127.0.0.1:0
		[ "$status" -eq 2 ] && [[ "$stderr" == *"bad --session-ttl '$bad'"* ]] || fail "$bad: $status $stderr"
	done
	assert_ledger_unchanged
	# --session-ttl sets the cookie's life.
	start_server --session-ttl 2h
	run curl -s -D - -o /dev/null -c "$TEST_ROOT/jar" "$LOGIN"
	[[ "$output" == *"Max-Age=7200"* ]] || fail "$output"
}

# mutant: the value labels or the y axis's ticks dropped: a grep fails.
@test "the usage page charts cost by day on axes: the y axis in cost from 0 to the most, each day's value and date" {
	local t0=1800000000000 day=86400000
	daicho add t --done-when saved >/dev/null
	daicho --as w1 claim 1 >/dev/null
	echo a | DAICHO_NOW_MS=$t0 daicho --as w1 save 1 -f - --cost 0.5 --tokens-in 100 --tokens-out 20 >/dev/null
	echo b | DAICHO_NOW_MS=$((t0 + day)) daicho --as w1 save 1 -f - --cost 2 --tokens-in 300 --tokens-out 40 >/dev/null
	echo c | DAICHO_NOW_MS=$((t0 + 2 * day)) daicho --as w1 save 1 -f - --cost 1 --tokens-in 50 --tokens-out 5 >/dev/null
	start_server_detached
	http GET /usage
	[ "$status" = 200 ] || fail "$status"
	local chart=${output#*<svg class=\"days\"}
	chart=${chart%%</svg>*}
	# The y axis: 0, half and the most, and its name.
	for tick in '>0.00</text>' '>1.00</text>' '>2.00</text>' '>cost</text>' '>day</text>'; do
		[[ "$chart" == *"$tick"* ]] || fail "no $tick on the axes: $chart"
	done
	# Each day's value over its bar, and its date under it.
	for value in 0.50 2.00 1.00; do
		[[ "$chart" == *"class=\"value\""*">$value</text>"* ]] || fail "no value $value: $chart"
	done
	[[ "$chart" == *">01-15</text>"* && "$chart" == *">01-17</text>"* ]] || fail "no dates: $chart"
	[ "$(grep -o '<rect class="bar"' <<<"$chart" | wc -l)" -eq 3 ] || fail "not three bars: $chart"
}

# mutant: an empty page's html_empty() call dropped: its grep fails.
@test "every empty page says what there is none of and what to do next" {
	start_server_detached
	local page what want
	for page in "/|there is no work yet.|daicho add TITLE --done-when CHECK" \
	    "/agents|No agent is live now.|daicho init" \
	    "/tasks|No tasks yet.|daicho add --batch FILE" \
	    "/tasks?state=open|No task matches these filters.|Every task" \
	    "/graph|Nothing to draw yet.|--after ID" \
	    "/usage|No usage recorded yet.|--tokens-in N"; do
		IFS='|' read -r page what want <<<"$page"
		http GET "$page"
		[ "$status" = 200 ] || fail "$page: $status"
		[[ "$output" == *"<p class=\"empty\">"*"$what</p><p class=\"next mute\">"*"$want"* ]] ||
			fail "$page does not say '$what' and '$want': $output"
	done
	# With work under way and nothing for the person, it says so.
	daicho add t >/dev/null
	http GET /
	[[ "$output" == *"Nothing needs you now.</p>"*"this page updates itself"* ]] || fail "$output"
}

# mutant: draw() ignoring expand (the group stays one node), or the
# member search cut short by the roots it resets: the nodes' count fails.
@test "the graph draws finished work as one node that expands on click, and collapses again" {
	local i prev=
	for i in 1 2 3; do
		daicho add "step $i" --done-when saved ${prev:+--after $prev} >/dev/null
		prev=$i
	done
	daicho add "next" --after 3 >/dev/null
	for i in 1 2 3; do
		daicho --as w1 claim "$i" >/dev/null
		echo done | daicho --as w1 save "$i" -f - >/dev/null
		daicho --as w1 report "$i" >/dev/null
		daicho sweep >/dev/null
	done
	start_server_detached
	http GET /graph
	[[ "$output" == *"✓ 3 verified"* ]] || fail "not one node: $output"
	local link
	link=$(grep -o 'xlink:href="/graph?expand=[0-9]*"' <<<"$output")
	[ -n "$link" ] || fail "the group does not link to its expansion: $output"
	link=${link#xlink:href=\"}
	http GET "${link%\"}"
	[ "$status" = 200 ] || fail "$status"
	for i in 1 2 3 4; do
		[[ "$output" == *"xlink:href=\"/tasks/$i\""* ]] || fail "#$i not drawn in full: $output"
	done
	[[ "$output" != *"✓ 3 verified"* ]] || fail "still collapsed"
	[[ "$output" == *'<a href="/graph">collapse it</a>'* ]] || fail "no way back: $output"
	http GET "/graph?expand=x"
	[ "$status" = 400 ] || fail "a bad expand: $status"
}

# mutant: the ranking loop dropped (NEEDS YOU's order kept): the message
# comes first and the order's assertion fails.
@test "Needs you ranks items by urgency and colours them: a stale holder before a message, a blocked task first" {
	daicho agent start "$HUMAN" --kind human >/dev/null
	daicho add held >/dev/null
	daicho add stuck >/dev/null
	DAICHO_NOW_MS=$(($(date +%s%3N) - 20 * 60000)) daicho --as old claim 1 >/dev/null
	daicho --as w1 send "$HUMAN" "hello" >/dev/null
	daicho --as w2 claim 2 >/dev/null
	daicho --as w2 block 2 --reason "which one?" >/dev/null
	# The terminal's order: blocked, message, then the stale holder.
	[ "$(daicho status --json | jq -c '[.needs_you[].kind]')" = '["blocked","message","stale-agent-holding"]' ]
	start_server_detached
	http GET /
	[ "$(grep -o 'data-kind="[a-z-]*" data-urgency="[a-z]*"' <<<"$output" | tr '\n' ' ')" = \
	    'data-kind="blocked" data-urgency="now" data-kind="stale-agent-holding" data-urgency="soon" data-kind="message" data-urgency="later" ' ] ||
		fail "$(grep -o 'data-kind="[a-z-]*" data-urgency="[a-z]*"' <<<"$output")"
}

@test "agents going quiet are amber before they turn stale" {
	daicho --as near ls >/dev/null
	DAICHO_NOW_MS=$(($(date +%s%3N) - 6 * 60000)) daicho --as quiet ls >/dev/null
	start_server
	http GET /agents
	[ "$status" = 200 ] || fail "$status"
	local rows
	rows=$(sed 's#</tr>#</tr>\n#g' <<<"$output")
	grep '<tr><td>quiet</td>' <<<"$rows" | grep -q 's-quiet"[^>]*>quiet<' || fail "quiet: $rows"
	grep '<tr><td>near</td>' <<<"$rows" | grep -q 's-active">active<' || fail "near: $rows"
	! grep '<tr><td>near</td>' <<<"$rows" | grep -q 's-quiet' || fail "near is not quiet: $rows"
	# Amber is its own colour.
	http GET /static/style.css
	[[ "$output" == *'.s-quiet{background:#ffd27a}'* ]] || fail "no amber"
}

@test "started with no terminal (as an agent would), the dashboard is read-only: no login URL, actions refused" {
	daicho add "one" >/dev/null
	start_server_detached
	grep -q 'read-only' "$SERVE_OUT" || fail "no read-only notice: $(cat "$SERVE_OUT")"
	if grep -q 'login?token' "$SERVE_OUT"; then fail "a login URL was printed: $(cat "$SERVE_OUT")"; fi
	http POST /api/reopen/1
	[ "$status" = 403 ] || fail "$status $output"
	http GET /login?token=x
	[ "$status" = 403 ]
}

@test "an agent's identity in the environment makes it read-only too, even on a terminal" {
	start_server_as_agent() {
		local cmd
		printf -v cmd '%q ' env DAICHO_AGENT=w9 daicho serve --listen 127.0.0.1:0
		SERVE_OUT="$TEST_ROOT/serve.out"
		script -qfec "$cmd" /dev/null </dev/null >"$SERVE_OUT" 2>&1 &
		wait_for_server
	}
	start_server_as_agent
	grep -q 'read-only' "$SERVE_OUT"
	! grep -q 'login?token' "$SERVE_OUT"
}

@test "a non-loopback address needs TLS or --insecure; bad --listen is a usage error" {
	run --separate-stderr daicho serve --listen 0.0.0.0:0
	assert_refused 2
	stderr_contains "not a loopback address"
	run --separate-stderr daicho serve --listen nonsense
	assert_refused 2
	run --separate-stderr daicho serve --listen 127.0.0.1:99999
	assert_refused 2
	run --separate-stderr daicho serve --listen 0.0.0.0:0 --tls-cert x.pem
	assert_refused 2
	start_server_detached --insecure
	:
}

@test "with --tls-cert and --tls-key it serves HTTPS" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TEST_ROOT/key.pem" \
		-out "$TEST_ROOT/cert.pem" -days 1 -subj /CN=localhost 2>/dev/null
	SERVE_OUT="$TEST_ROOT/serve.out"
	daicho serve --listen 0.0.0.0:0 --tls-cert "$TEST_ROOT/cert.pem" --tls-key "$TEST_ROOT/key.pem" \
		</dev/null >"$SERVE_OUT" 2>&1 &
	local i
	for i in $(seq 1200); do
		grep -q 'dashboard at https://' "$SERVE_OUT" && break
		sleep 0.05
	done
	URL="$(grep -o 'https://[0-9.:]*' "$SERVE_OUT" | head -1)"
	SERVE_PID="$(pgrep -f "^$DAICHO_ROOT/daicho-serve --ledger $DAICHO_LEDGER serve" | head -1)"
	[ -n "$URL" ] || fail "no https URL: $(cat "$SERVE_OUT")"
	run curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:${URL##*:}/api/ls"
	[ "$output" = 200 ]
}

@test "without daicho-serve, daicho serve says how to get it" {
	DAICHO_SERVE_BIN="$TEST_ROOT/none" run --separate-stderr daicho serve
	assert_refused 1
	stderr_contains "make daicho-serve"
}

@test "live: a change made with the CLI is announced on /events within a second" {
	start_server
	curl -sN --max-time 3 "$URL/events" >"$TEST_ROOT/events.txt" &
	local curl_pid=$!
	sleep 0.5
	daicho add "new work" >/dev/null
	wait "$curl_pid" || true
	grep -q '^event: change' "$TEST_ROOT/events.txt" || fail "no change event: $(cat "$TEST_ROOT/events.txt")"
}

@test "live: a stream resumed with an older Last-Event-ID is told of the change at once" {
	start_server
	daicho add "one" >/dev/null
	sleep 0.5
	curl -sN --max-time 1 -H "Last-Event-ID: 0" "$URL/events" >"$TEST_ROOT/events.txt" || true
	grep -q '^event: change' "$TEST_ROOT/events.txt" || fail "no change event: $(cat "$TEST_ROOT/events.txt")"
}

@test "the first page shows the landing queue: verified work not yet on the trunk, and landing paused in NEEDS YOU" {
	stop_server 2>/dev/null || true
	new_git_repo "$TEST_ROOT/repo"
	cd "$TEST_ROOT/repo"
	export DAICHO_LEDGER="$TEST_ROOT/repo/.git/daicho/ledger.db"
	daicho init >/dev/null
	person daicho land --pause >/dev/null
	daicho add 'land me' --done-when file:a.txt >/dev/null
	daicho --as w1 claim 1 >/dev/null
	git checkout -q -b w1
	echo a >a.txt && git add a.txt && git commit -qm a
	git checkout -q main
	daicho --as w1 report 1 --commit w1
	daicho sweep >/dev/null
	[ "$(task_field 1 state)" = verified ]
	start_server
	http GET /
	[ "$status" = 200 ]
	[[ "$output" == *'<h2>Landing <span class="mute">(1)</span></h2>'* ]] || fail "no landing section: $output"
	[[ "$output" == *'data-task="1"'*'>queued<'*'land me'* ]] || fail "no queued task: $output"
	[[ "$output" == *'data-kind="land-paused"'* ]] || fail "the pause is not in NEEDS YOU: $output"
}

# mutant: html_escape() passing invisible characters through.
@test "a bidirectional override in a title is drawn as [U+202E] on the pages, never obeyed" {
	daicho add "deploy "$'\u202e'"gnigats" >/dev/null
	start_server
	for page in / /tasks /tasks/1; do
		http GET "$page"
		[ "$status" = 200 ] || fail "$page: $status"
		[[ "$output" != *$'\u202e'* ]] || fail "$page carries the override itself"
	done
	http GET /tasks/1
	[[ "$output" == *"deploy [U+202E]gnigats"* ]] || fail "not drawn: $(grep -o 'deploy[^<]*' <<<"$output" | head -2)"
}
