#!/bin/sh
# PREPARE every SQL statement of daicho's core on PostgreSQL, as the
# driver sends it, in a throw-away cluster with the PostgreSQL schema
# (pg/schema_pg.c) loaded: each statement that PostgreSQL refuses is
# reported with its file:line, and the exit status is 1 when any is.
#
#   tests/pg/check-sql.sh [FILE.c ...]   (default: src/core, src/run,
#                                         src/integ and src/cmd)
#
# A statement is prepared twice: with the parameter types PostgreSQL
# infers, then with the types the driver sends for them (a C integer is
# always int8: an inferred integer, smallint, numeric or boolean becomes
# bigint). Statements assembled at run time are listed, not checked.
set -eu
cd "$(dirname "$0")/../.."
here=tests/pg

case "${1:-}" in
--in-cluster)
	shift
	work=$1
	shift
	createdb daicho_check
	"$work/dump" migrations | psql -X -q -v ON_ERROR_STOP=1 -1 daicho_check >/dev/null
	"$work/dump" roles | psql -X -q -v ON_ERROR_STOP=1 -1 daicho_check >/dev/null
	{
		cat <<'SQL'
\set ON_ERROR_STOP 1
CREATE FUNCTION pg_temp.daicho_check(loc text, q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	inferred regtype[];
	sent text;
BEGIN
	BEGIN
		EXECUTE 'PREPARE daicho_s AS ' || q;
	EXCEPTION WHEN OTHERS THEN
		RETURN format('FAIL %s: %s', loc, SQLERRM);
	END;
	SELECT parameter_types INTO inferred FROM pg_prepared_statements
	WHERE name = 'daicho_s';
	DEALLOCATE daicho_s;
	IF coalesce(array_length(inferred, 1), 0) = 0 THEN
		RETURN NULL;
	END IF;
	SELECT string_agg(CASE WHEN t IN ('integer'::regtype,
	    'smallint'::regtype, 'numeric'::regtype, 'boolean'::regtype)
	    THEN 'bigint' ELSE format_type(t, NULL) END, ', ' ORDER BY n)
	INTO sent FROM unnest(inferred) WITH ORDINALITY AS p(t, n);
	BEGIN
		EXECUTE format('PREPARE daicho_s (%s) AS %s', sent, q);
		DEALLOCATE daicho_s;
	EXCEPTION WHEN OTHERS THEN
		RETURN format('FAIL %s (parameters sent as %s): %s', loc,
		    sent, SQLERRM);
	END;
	RETURN NULL;
END $$;
SQL
		python3 "$here/sql-literals.py" "$@" | python3 "$here/check-sql.py"
	} | psql -X -q -At daicho_check 2>&1
	;;
*)
	if [ $# -eq 0 ]; then
		set -- $(ls src/core/*.c src/run/*.c src/integ/*.c src/cmd/*.c |
			grep -v -e '^src/core/schema\.c$' -e '^src/core/db_sqlite\.c$')
	fi
	work=$(mktemp -d /tmp/daicho-check-sql.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	cat >"$work/dump.c" <<'C'
#include <stdio.h>
#include <string.h>

#include "pg/schema_pg.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "roles") == 0)
		return puts(schema_pg_roles) < 0;
	for (size_t i = 0; i < schema_pg_migration_count; i++)
		if (puts(schema_pg_migrations[i]) < 0)
			return 1;
	return 0;
}
C
	${CC:-cc} -std=c11 -Wall -Werror -Isrc -o "$work/dump" "$work/dump.c" \
		src/pg/schema_pg.c
	chmod 755 "$work" "$work/dump"
	"$here/cluster.sh" run "$0" --in-cluster "$work" "$@" >"$work/out"
	cat "$work/out"
	failures=$(grep -c '^FAIL ' "$work/out" || true)
	echo "failures: $failures"
	[ "$failures" -eq 0 ]
	;;
esac
