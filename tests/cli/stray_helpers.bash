# Helpers for tests that a shell command daicho runs (a cmd: check, a
# gate's --require) leaves no process behind, wherever the process went:
# verify.bats and gate.bats. The processes are sleeps of lengths no other
# process uses, found by their whole command line (pgrep -f '^sleep N$').

# started CMD PATTERN: shell text that runs CMD (which must end with '&' or
# ';'), then waits until a process whose command line matches PATTERN
# runs (6000 looks: a minute and more, for a loaded machine; it ends at
# the first), and fails (exit 9) if none does: so that a test finding
# nothing left knows there was something to leave.
started() {
	printf "%s i=0; until pgrep -f '%s' >/dev/null; do [ \$i -lt 6000 ] || exit 9; i=\$((i + 1)); sleep 0.01; done;" "$1" "$2"
}

# assert_none_left PATTERN...: soon no process's command line matches any
# PATTERN (daicho ends them when the command ends; the wait, up to 20 s on
# a loaded machine, only covers the kernel's bookkeeping).
assert_none_left() {
	local pattern found left
	for _ in $(seq 200); do
		left=""
		for pattern in "$@"; do
			found="$(pgrep -af "$pattern" || true)"
			if [ -n "$found" ]; then
				left+=$'\n'"$found"
			fi
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "stray processes left: $left"
}

# own_strays: called from setup_file. The patterns are unique to a test
# file, not to a bats run: two runs of one file at once (two checkouts
# tested on one machine) would end each other's checks. So the file's run
# holds a lock, named after the file, until it ends (the lock goes with
# the bats-exec-file process that runs setup_file and every test); another
# run of the same file waits for it, at most half an hour.
own_strays() {
	local name
	name="$(basename "$BATS_TEST_FILENAME" .bats)"
	exec {STRAY_LOCK_FD}>>"/tmp/daicho-test-strays-$name.lock"
	flock -w 1800 "$STRAY_LOCK_FD" ||
		{ echo "another run of $name.bats held its lock for 30 minutes" >&2; return 1; }
}

# kill_strays PATTERN...: SIGKILL each process matching a PATTERN, by pid,
# so that what daicho failed to end outlives no test.
kill_strays() {
	local pattern pid
	for pattern in "$@"; do
		for pid in $(pgrep -f "$pattern" || true); do
			kill -KILL "$pid" 2>/dev/null || true
		done
	done
}
