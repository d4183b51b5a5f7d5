# Shared set-up for the dashboard's tests (bats): a fresh ledger per test
# as in tests/cli, and a daicho serve started on a pseudo-terminal (as a
# person starts it) on a free loopback port.

load ../cli/helpers

DAICHO_ROOT="${BATS_TEST_DIRNAME%/tests/serve}"
SERVE_DIR="$BATS_TEST_DIRNAME"
# Screenshots and other artefacts of the browser tests.
export SERVE_ARTIFACTS="${SERVE_ARTIFACTS:-$DAICHO_ROOT/build/serve-artifacts}"

setup() {
	common_setup
	mkdir -p "$SERVE_ARTIFACTS"
	HUMAN="$(id -un)"
	SERVE_PID=""
}

teardown() {
	stop_server
}

# start_server [OPTION...]: daicho serve on a pseudo-terminal (util-linux
# script), as a person at a terminal starts it. Sets LOGIN (the one-time
# login URL), URL (where the person acts: the login's origin, the server's
# own host name d-LABEL.localhost), LOOPBACK_URL (the address it printed
# on stdout, 127.0.0.1) and SERVE_PID (daicho-serve's pid).
start_server() {
	local cmd i
	printf -v cmd '%q ' daicho serve --listen 127.0.0.1:0 "$@"
	SERVE_OUT="$TEST_ROOT/serve.out"
	script -qfec "$cmd" /dev/null </dev/null >"$SERVE_OUT" 2>&1 &
	wait_for_server
	LOGIN="$(grep -o 'http://[^ ]*/login?token=[0-9a-f]*' "$SERVE_OUT" || true)"
	LOGIN="${LOGIN%%$'\n'*}"
	[ -n "$LOGIN" ] || fail "no login URL printed: $(cat "$SERVE_OUT")"
	LOOPBACK_URL="$URL"
	URL="${LOGIN%%/login\?*}"
}

# start_server_detached [OPTION...]: daicho serve with no terminal (as an
# agent's shell or a service would start it).
start_server_detached() {
	SERVE_OUT="$TEST_ROOT/serve.out"
	daicho serve --listen 127.0.0.1:0 "$@" </dev/null >"$SERVE_OUT" 2>&1 &
	wait_for_server
	LOGIN=""
}

# wait_for_server: until serve.out names the URL (60 s at most: a bound
# for a server that never starts, not a measure of how fast it does).
wait_for_server() {
	local i
	for i in $(seq 1200); do
		URL="$(grep -o 'dashboard at http://[0-9.:]*' "$SERVE_OUT" || true)"
		URL="${URL%%$'\n'*}"
		URL="${URL#dashboard at }"
		[ -z "$URL" ] || break
		sleep 0.05
	done
	[ -n "$URL" ] || fail "daicho serve did not start: $(cat "$SERVE_OUT")"
	# The server of this test's own ledger: found by its whole command line.
	SERVE_PID="$(pgrep -f "^$DAICHO_ROOT/daicho-serve --ledger $DAICHO_LEDGER serve" || true)"
	SERVE_PID="${SERVE_PID%%$'\n'*}"
	[ -n "$SERVE_PID" ] || fail "cannot find daicho-serve's pid"
}

# stop_server: end daicho-serve (by pid) and wait until it is gone.
stop_server() {
	local i
	[ -n "${SERVE_PID:-}" ] || return 0
	kill "$SERVE_PID" 2>/dev/null || true
	for i in $(seq 100); do
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.05
	done
	SERVE_PID=""
}

# login_cookie JAR: log in with LOGIN, keeping the cookie in JAR; sets CSRF.
login_cookie() {
	curl -s -o /dev/null -c "$1" "$LOGIN"
	CSRF="$(curl -s -b "$1" "$URL/" | grep -o 'name="csrf-token" content="[0-9a-f]*' | cut -d'"' -f4)"
	[ -n "$CSRF" ] || fail "no CSRF token after logging in"
}

# http METHOD PATH [CURL ARG...]: one request; sets status (the HTTP code)
# and output (the body). A POST carries Origin: URL, as a browser's does,
# unless the arguments give an Origin header of their own ('-H Origin:'
# for none).
http() {
	local method="$1" path="$2" arg origin=()
	shift 2
	if [ "$method" = POST ]; then
		origin=(-H "Origin: $URL")
		for arg in "$@"; do
			[[ "$arg" != Origin:* ]] || origin=()
		done
	fi
	output="$(curl -s --path-as-is -X "$method" -o "$TEST_ROOT/http.body" \
		-w '%{http_code}' "${origin[@]}" "$@" "$URL$path")"
	status="$output"
	output="$(cat "$TEST_ROOT/http.body")"
}

# browser SCENARIO [ARG...]: run one browser scenario (browser.js).
browser() {
	run node "$SERVE_DIR/browser.js" "$@"
	if [ "$status" -ne 0 ]; then
		fail "browser scenario '$1' failed (exit $status): $output"
	fi
}

# messages_and_server: the person (registered) has two unread messages, #1
# from w1 and #2 from w2; the server is started.
messages_and_server() {
	daicho agent start "$HUMAN" --kind human >/dev/null
	daicho --as w1 ls >/dev/null
	daicho --as w1 send "$HUMAN" "may I drop the old table?" >/dev/null
	daicho --as w2 send "$HUMAN" "FYI: the build is green" >/dev/null
	start_server
}

# approval_pending: an approval gate on 'deploy *' and agent w2's request
# for 'deploy prod' (request #1), which waits for a person.
approval_pending() {
	mkdir -p "$TEST_ROOT/bin"
	printf '#!/bin/sh\necho "deployed $*"\n' >"$TEST_ROOT/bin/deploy"
	chmod +x "$TEST_ROOT/bin/deploy"
	export PATH="$TEST_ROOT/bin:$PATH"
	on_pty daicho gate add 'deploy *' --approval
	[ "$status" -eq 0 ] || fail "gate add: $output"
	run daicho --as w2 gate exec -- deploy prod
	[ "$status" -eq 6 ] || fail "expected a pending request (exit 6), got $status: $output"
}

# blocked_task_and_server: task #1 blocked by w1, a server, a logged-in
# cookie jar ($TEST_ROOT/jar) and its CSRF token.
blocked_task_and_server() {
	daicho add "one" >/dev/null
	daicho --as w1 claim 1 >/dev/null
	daicho --as w1 block 1 --reason "stuck" >/dev/null
	start_server
	login_cookie "$TEST_ROOT/jar"
}
