#!/bin/sh
# Installs the agent clients that the end-to-end tests drive (the versions
# pinned in tests/e2e/package-lock.json) into tests/e2e/node_modules, when
# they are missing or the lock file changed since they were installed.
# Needs Node.js >= 20 and npm, and the npm registry; says exactly what is
# missing otherwise, and exits 1. Safe to run from several tests at once.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
say() { echo "daicho e2e: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	say "node and npm are needed to install the real agent clients (Node.js >= 20:"
	say "@google/gemini-cli refuses older; Debian 12's own nodejs is 18). Missing:" \
		"$(command -v node >/dev/null 2>&1 || printf 'node ')$(command -v npm >/dev/null 2>&1 || printf 'npm')"
	say "install Node.js 20 and npm, or run with DAICHO_E2E=skip to skip these tests"
	exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	say "Node.js $(node --version) is too old: the clients need >= 20 (@google/gemini-cli's engines)"
	say "install Node.js 20, or run with DAICHO_E2E=skip to skip these tests"
	exit 1
fi

stamp="$dir/node_modules/.daicho-installed-lock"
installed() {
	cmp -s "$dir/package-lock.json" "$stamp" &&
		[ -x "$dir/node_modules/.bin/claude" ] &&
		[ -x "$dir/node_modules/.bin/codex" ] &&
		[ -x "$dir/node_modules/.bin/gemini" ]
}
installed && exit 0

# One installer at a time; the others wait for it and then find it done.
exec 9>"$dir/.install.lock"
flock 9
installed && exit 0

say "installing the pinned agent clients (npm ci in tests/e2e)..."
log="$dir/npm-install.log"
# Install scripts are not run (one would compile a native module that no
# test needs); Claude Code's own, which only links its native binary from
# the platform package npm installed, is run by hand.
if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error &&
	node node_modules/@anthropic-ai/claude-code/install.cjs) >"$log" 2>&1; then
	if grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network|proxy' "$log"; then
		say "cannot reach the npm registry ($(npm config get registry)) to install the clients:"
	else
		say "npm ci failed:"
	fi
	tail -n 15 "$log" >&2
	say "(full log: $log; DAICHO_E2E=skip skips these tests)"
	exit 1
fi
cp "$dir/package-lock.json" "$stamp"
say "installed: $(cd "$dir" && node -p 'Object.entries(require("./package.json").dependencies).map(([n, v]) => n + "@" + v).join(", ")')"
