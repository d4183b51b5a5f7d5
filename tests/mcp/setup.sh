#!/bin/sh
# Installs the official MCP TypeScript SDK that the protocol tests drive
# (the version pinned in tests/mcp/package-lock.json) into
# tests/mcp/node_modules, when it is missing or the lock file changed since
# it was installed. Needs Node.js >= 20 and npm, and the npm registry; says
# exactly what is missing otherwise, and exits 1. Safe to run from several
# tests at once.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
say() { echo "daicho mcp tests: $*" >&2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	say "node and npm are needed to install @modelcontextprotocol/sdk (Node.js >= 20)"
	exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	say "Node.js $(node --version) is too old: the tests need >= 20"
	exit 1
fi

stamp="$dir/node_modules/.daicho-installed-lock"
installed() {
	cmp -s "$dir/package-lock.json" "$stamp" &&
		[ -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]
}
installed && exit 0

exec 9>"$dir/.install.lock"
flock 9
installed && exit 0

say "installing the pinned MCP SDK (npm ci in tests/mcp)..."
log="$dir/npm-install.log"
if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
	if grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network|proxy' "$log"; then
		say "cannot reach the npm registry ($(npm config get registry)):"
	else
		say "npm ci failed:"
	fi
	tail -n 15 "$log" >&2
	say "(full log: $log)"
	exit 1
fi
cp "$dir/package-lock.json" "$stamp"
