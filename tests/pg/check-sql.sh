#!/bin/sh
# PREPARE every SQL statement of daicho's core on PostgreSQL, as the
# driver sends it, in a throw-away cluster with the PostgreSQL schema
# (store/pg/schema.c) loaded: each statement that PostgreSQL refuses is
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
	n int := coalesce((SELECT max(CAST(m[1] AS int))
	    FROM regexp_matches(q, '\$(\d+)', 'g') AS m), 0);
	given text[] := array_fill(CAST('unknown' AS text), ARRAY[n]);
	inferred regtype[];
	sent text;
	note text := '';
	p int;
	state text;
	message text;
BEGIN
	-- An operand of arithmetic is bound with db_bind_int(): int8.
	FOR p IN SELECT CAST(m[1] AS int) FROM regexp_matches(q,
	    '\$(\d+)\s*[-+*/]|[-+*/]\s*\$(\d+)', 'g') AS m WHERE m[1] IS NOT NULL
	    UNION SELECT CAST(m[2] AS int) FROM regexp_matches(q,
	    '\$(\d+)\s*[-+*/]|[-+*/]\s*\$(\d+)', 'g') AS m WHERE m[2] IS NOT NULL
	LOOP
		given[p] := 'bigint';
	END LOOP;
	LOOP
		BEGIN
			IF n = 0 THEN
				EXECUTE 'PREPARE daicho_s AS ' || q;
			ELSE
				EXECUTE format('PREPARE daicho_s (%s) AS %s',
				    array_to_string(given, ', '), q);
			END IF;
			EXIT;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE,
			    message = MESSAGE_TEXT;
			-- A parameter whose type only its binding gives: fine
			-- unless it is bound NULL. Say so, and go on as int8.
			p := CAST(substring(message FROM
			    'could not determine data type of parameter \$(\d+)')
			    AS int);
			IF state <> '42P18' OR p IS NULL OR given[p] <> 'unknown' THEN
				RETURN format('FAIL %s: %s', loc, message);
			END IF;
			given[p] := 'bigint';
			note := note || format(' $%s', p);
		END;
	END LOOP;
	SELECT parameter_types INTO inferred FROM pg_prepared_statements
	WHERE name = 'daicho_s';
	DEALLOCATE daicho_s;
	IF n > 0 THEN
		SELECT string_agg(CASE WHEN t IN ('integer'::regtype,
		    'smallint'::regtype, 'numeric'::regtype, 'boolean'::regtype)
		    THEN 'bigint' ELSE format_type(t, NULL) END, ', ' ORDER BY i)
		INTO sent FROM unnest(inferred) WITH ORDINALITY AS a(t, i);
		BEGIN
			EXECUTE format('PREPARE daicho_s (%s) AS %s', sent, q);
			DEALLOCATE daicho_s;
		EXCEPTION WHEN OTHERS THEN
			RETURN format('FAIL %s (parameters sent as %s): %s', loc,
			    sent, SQLERRM);
		END;
	END IF;
	IF note <> '' THEN
		RETURN format('note %s: typed only by its binding (an error'
		    ' if bound NULL):%s', loc, note);
	END IF;
	RETURN NULL;
END $$;
SQL
		python3 "$here/sql-literals.py" "$@" | python3 "$here/check-sql.py"
	} | psql -X -q -At daicho_check 2>&1
	;;
*)
	if [ $# -eq 0 ]; then
		set -- $(ls src/core/*.c src/run/*.c src/integ/*.c src/cmd/*.c)
	fi
	work=$(mktemp -d /tmp/daicho-check-sql.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	cat >"$work/dump.c" <<'C'
#include <stdio.h>
#include <string.h>

#include "store/pg/schema.h"

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
		src/store/pg/schema.c
	chmod 755 "$work" "$work/dump"
	"$here/cluster.sh" run "$0" --in-cluster "$work" "$@" >"$work/out"
	cat "$work/out"
	failures=$(grep -c '^FAIL ' "$work/out" || true)
	echo "failures: $failures"
	[ "$failures" -eq 0 ]
	;;
esac
