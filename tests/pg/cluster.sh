#!/bin/sh
# A throw-away PostgreSQL cluster for daicho's tests: initdb into a new
# temporary directory, listening on a Unix socket inside it only (no TCP
# port, so clusters of parallel runs never meet), fsync off.
# DAICHO_PG_LISTEN=127.0.0.1 DAICHO_PG_PORT=N also listen on loopback TCP
# (tests that stand for several machines).
#
#   tests/pg/cluster.sh start        prints the cluster's directory; its
#                                    env file sets PGHOST, PGPORT, PGUSER
#   tests/pg/cluster.sh stop DIR     stops it (immediately) and removes DIR
#   tests/pg/cluster.sh run CMD...   start, run CMD with the cluster's
#                                    environment, stop: also when CMD
#                                    fails or the run is interrupted
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to an
# unprivileged user ($DAICHO_PG_USER, default nobody), and its directory is
# made where that user can reach it.
set -eu

bindir() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -x "$d/initdb" ] && { echo "$d"; return; }
	done
	command -v initdb >/dev/null && { dirname "$(command -v initdb)"; return; }
	echo "tests/pg/cluster.sh: no initdb (install Debian's postgresql: scripts/deps.sh check)" >&2
	exit 1
}

# as_owner CMD...: run CMD as the cluster's owner.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "${DAICHO_PG_USER:-nobody}" -- "$@"
	else
		"$@"
	fi
}

start() {
	bin=$(bindir)
	dir=$(mktemp -d /tmp/daicho-pg.XXXXXX)
	chmod 755 "$dir"
	if [ "$(id -u)" = 0 ]; then
		chown "${DAICHO_PG_USER:-nobody}" "$dir"
	fi
	if ! as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
		--locale=C --no-sync >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		rm -rf "$dir"
		exit 1
	fi
	if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-c listen_addresses=${DAICHO_PG_LISTEN:-} -k $dir -p ${DAICHO_PG_PORT:-5432} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
		start >/dev/null; then
		cat "$dir/server.log" >&2
		rm -rf "$dir"
		exit 1
	fi
	printf 'PGHOST=%s\nPGPORT=%s\nPGUSER=postgres\nexport PGHOST PGPORT PGUSER\n' "$dir" "${DAICHO_PG_PORT:-5432}" >"$dir/env"
	echo "$dir"
}

stop() {
	dir=$1
	case "$dir" in /tmp/daicho-pg.*) ;; *) echo "tests/pg/cluster.sh: not a cluster: $dir" >&2; exit 2 ;; esac
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
start) start ;;
stop) [ $# -eq 2 ] || { echo "usage: tests/pg/cluster.sh stop DIR" >&2; exit 2; }; stop "$2" ;;
run)
	shift
	dir=$(start)
	trap 'stop "$dir"' EXIT
	trap 'exit 130' INT TERM
	# shellcheck disable=SC1091
	. "$dir/env"
	status=0
	"$@" || status=$?
	exit "$status"
	;;
*) echo "usage: tests/pg/cluster.sh start | stop DIR | run CMD..." >&2; exit 2 ;;
esac
