# Shared by tests/mcp/*.bats: each test runs one scenario of a node script
# ($SCENARIOS: run.js or adversary.js) against the built ./daicho.

# A pipeline fails when any command in it fails (as tests/backend.bash).
set -o pipefail

bats_require_minimum_version 1.5.0

setup_file() {
	"$BATS_TEST_DIRNAME/setup.sh"
	[ -x "$BATS_TEST_DIRNAME/../../daicho" ] || {
		echo "build daicho first (make)" >&2
		return 1
	}
}

# scenario NAME: run scenario NAME of $SCENARIOS; it passes or prints why.
scenario() {
	run node "$BATS_TEST_DIRNAME/$SCENARIOS" "$1"
	echo "$output"
	[ "$status" -eq 0 ]
}
