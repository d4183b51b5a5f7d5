#!/usr/bin/env bats
# The README's examples run as written. The tour is taken out of README.md
# itself, so a change to the README or to the program that makes them
# disagree fails here.
#
# In a ```sh block with "$ " prompts, each "$ COMMAND" runs in one shell,
# in order (cd, exports and $? carry over), and the lines after it, up to
# the next prompt, are its output: compared line by line, where "..."
# stands for any lines, and times, ages, durations and commit hashes may
# differ (normalize()). A command shown with no output must succeed; one
# whose output starts "daicho: " must fail. A block without prompts is a
# script another process runs (a worker): it runs in a subshell of its
# own, its "...do the work..." line replaced by work this file defines.

load helpers

setup() {
	any_backend "the README's examples make a SQLite ledger of their own"
	NO_INIT=1 common_setup
	unset DAICHO_LEDGER
	git config --global init.defaultBranch main
	git config --global commit.gpgsign false
	mkdir my-repo
	git -C my-repo init -q
	git -C my-repo commit -q --allow-empty -m "initial commit"
	export TOUR="$TEST_ROOT/tour"
	mkdir "$TOUR"
}

# extract SECTION: split the README section headed "## SECTION" into
# $TOUR/cmd.N (a command or a whole script block), $TOUR/kind.N ("cmd" or
# "script") and $TOUR/want.N (the output shown); prints N, the count.
extract() {
	awk -v section="## $1" -v dir="$TOUR" '
	function flush() {
		if (pending) {
			printf "%s", cmd > (dir "/cmd." n); close(dir "/cmd." n)
			printf "%s", want > (dir "/want." n); close(dir "/want." n)
			print kind > (dir "/kind." n); close(dir "/kind." n)
		}
		cmd = ""; want = ""; pending = 0
	}
	$0 == section { inside = 1; next }
	inside && /^## / { inside = 0 }
	!inside { next }
	/^```sh$/ { block = 1; lines = 0; prompts = 0; script = ""; next }
	block && /^```$/ {
		block = 0
		if (prompts == 0) { n++; pending = 1; kind = "script"; cmd = script }
		flush()
		next
	}
	!block { next }
	/^\$ / {
		flush(); n++; pending = 1; prompts++; kind = "cmd"
		cmd = substr($0, 3) "\n"
		next
	}
	prompts > 0 { if ($0 != "") want = want $0 "\n"; next }
	{ script = script $0 "\n" }
	END { flush(); print n }
	' "$DAICHO_ROOT/README.md"
}

# normalize [REPO]: what may differ from run to run, made the same.
normalize() {
	sed -E -e "s|/home/me/my-repo|$TEST_ROOT/my-repo|g" \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z/<time>/g' \
		-e 's/\b[0-9a-f]{12,40}\b/<hash>/g' \
		-e 's/\b[0-9]+(ms|s|m|h|d)\b/<dur>/g' \
		-e 's/[[:space:]]+$//'
}

# matches WANT GOT: whether file GOT shows file WANT ("..." any lines).
matches() {
	awk '
	NR == FNR { want[++w] = $0; next }
	{ got[++g] = $0 }
	END {
		i = 1; j = 1
		while (i <= w) {
			if (want[i] == "...") {
				if (i == w) exit 0
				while (j <= g && got[j] != want[i + 1]) j++
				if (j > g) exit 1
				i++
				continue
			}
			if (j > g || got[j] != want[i]) exit 1
			i++; j++
		}
		exit (j <= g)
	}' <(normalize <"$1") <(normalize <"$2")
}

# step_fails MESSAGE: fail the test (the tour's loop runs with set +e).
step_fails() {
	set -e
	fail "$1"
}

# The work a tour's worker does at "...do the work...": it commits a result
# on a branch of its own, but not the file its task is checked for.
tour_work='git checkout -q -b work && echo "chapter one" >result.md &&
	git add result.md && git commit -q -m "w1: result"'

# run_section SECTION MIN: run the README section's examples in order, as
# this file's header says, failing at the first step whose status or output
# differs from what the README shows; at least MIN steps must be found.
run_section() {
	local count n cmd kind follow rc
	count=$(extract "$1")
	[ "$count" -ge "$2" ] || fail "only $count commands found in '$1'"
	# Each step's status is looked at (and $? handed to the next step):
	# a failing step must not end the test before it is compared.
	set +e
	rc=0
	for n in $(seq 1 "$count"); do
		cmd=$(cat "$TOUR/cmd.$n")
		kind=$(cat "$TOUR/kind.$n")
		follow=0
		if [ "$kind" = script ]; then
			cmd=$(while IFS= read -r line; do
				case "$line" in
				...*...) printf '%s\n' "$tour_work" ;;
				*) printf '%s\n' "$line" ;;
				esac
			done <<<"$cmd")
			(eval "$cmd") >"$TOUR/got.$n" 2>&1
			rc=$?
		else
			# A command that follows the ledger for ever runs a second.
			case "$cmd" in *--follow*) cmd="timeout 1 $cmd" follow=1 ;; esac
			(exit "$rc")
			eval "$cmd" >"$TOUR/got.$n" 2>&1
			rc=$?
		fi
		if [ "$follow" = 1 ] && [ "$rc" = 124 ]; then
			:
		elif head -n1 "$TOUR/want.$n" | grep -q '^daicho: '; then
			[ "$rc" -ne 0 ] || step_fails "step $n ($cmd) succeeded, the tour shows it refused"
		elif [ "$rc" -ne 0 ]; then
			step_fails "step $n ($cmd) failed ($rc): $(cat "$TOUR/got.$n")"
		fi
		if [ -s "$TOUR/want.$n" ] && ! matches "$TOUR/want.$n" "$TOUR/got.$n"; then
			step_fails "step $n ($cmd) printed
$(cat "$TOUR/got.$n")
and the README shows
$(cat "$TOUR/want.$n")"
		fi
	done
	set -e
}

@test "the README's five-minute tour runs as written and prints what it shows" {
	run_section "A five-minute tour" 15
	# The tour made what it says it made.
	[ -s "$TEST_ROOT/my-repo/graph.svg" ] || fail "no graph.svg"
}

@test "the README's quickstart runs as written and ends with the work landed on the trunk" {
	run_section "Quickstart" 12
	cd "$TEST_ROOT/my-repo"
	[ "$(daicho ls --json | jq -r '.[0].state')" = landed ]
	git cat-file -e main:parse.c || fail "parse.c is not on main"
	[ "$(git symbolic-ref HEAD)" = refs/heads/main ]
}

@test "the tour's extraction finds its commands and their output" {
	count=$(extract "A five-minute tour")
	grep -qx 'daicho claim --next' "$TOUR/cmd.1" && fail "the worker script was split"
	grep -q '^daicho init' "$TOUR/cmd.2"
	grep -q '^Created daicho ledger at ' "$TOUR/want.2"
	grep -l 'id=$(daicho claim --next)' "$TOUR"/cmd.* >/dev/null
	grep -l '^script$' "$TOUR"/kind.* >/dev/null
	# A README changed so that an example disagrees is caught.
	printf 'sweep: 9 verified\n' >"$TOUR/wrong"
	printf 'sweep: 0 verified\n' >"$TOUR/right"
	run matches "$TOUR/wrong" "$TOUR/right"
	assert_failure
	printf '...\nverdict\n' >"$TOUR/dots"
	printf 'a\nb\nverdict\n' >"$TOUR/long"
	run matches "$TOUR/dots" "$TOUR/long"
	assert_success
}
