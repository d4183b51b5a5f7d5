#!/bin/sh
# Installs playwright-core (the version pinned in tests/serve/package-lock.json)
# into tests/serve/node_modules for the dashboard's browser tests, when it is
# missing or the lock file changed since. The browser is Debian's chromium
# (scripts/deps.sh check installs it); playwright downloads nothing. Needs
# Node.js >= 20 and npm, and the npm registry; says what is missing
# otherwise, and exits 1. Safe to run from several tests at once.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
say() { echo "daicho serve tests: $*" >&2; }

for tool in node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		say "$tool is needed to install playwright-core (Node.js >= 20 and npm)"
		exit 1
	fi
done
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
	say "Node.js $(node --version) is too old: playwright-core needs >= 20"
	exit 1
fi
if [ ! -x /usr/bin/chromium ]; then
	say "/usr/bin/chromium is missing (apt-get install chromium; scripts/deps.sh check does)"
	exit 1
fi

stamp="$dir/node_modules/.daicho-installed-lock"
installed() {
	cmp -s "$dir/package-lock.json" "$stamp" &&
		[ -f "$dir/node_modules/playwright-core/package.json" ]
}
installed && exit 0

exec 9>"$dir/.install.lock"
flock 9
installed && exit 0

say "installing playwright-core (npm ci in tests/serve)..."
log="$dir/npm-install.log"
# No install scripts: playwright-core has none that a test needs, and no
# browser is downloaded (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD, besides).
if ! (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts \
	--no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
	say "npm ci failed:"
	tail -n 15 "$log" >&2
	say "(full log: $log)"
	exit 1
fi
cp "$dir/package-lock.json" "$stamp"
say "installed playwright-core $(node -p 'require("'"$dir"'/node_modules/playwright-core/package.json").version')"
