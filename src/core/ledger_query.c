/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The questions asked of the ledger as a whole (core/ledger.h), through
 * the statement interface like any module's: its schema's version, the
 * write lock held now, and, on a shared ledger, what its logins may do.
 */
#include "core/ledger_internal.h"

int
ledger_query_int(struct ledger *ledger, const char *sql, int64_t *value,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*value = 0;
	if ((rc = db_prepare_once(ledger, sql, &st, err)) < 0)
		return rc;
	rc = db_step_int(ledger, st, value, NULL, "reading the ledger", err);
	db_finalize(st);
	return rc;
}

int64_t
ledger_schema_version(struct ledger *ledger)
{
	struct err ignored = ERR_INIT;
	int64_t version = 0;

	ledger_query_int(ledger, ledger->driver->schema_version_sql, &version,
	    &ignored);
	err_release(&ignored);
	return version;
}

int
ledger_hold_lock(struct ledger *ledger, struct err *err)
{
	int64_t taken = 0, released = 0;
	struct db_stmt *st;
	int rc;

	if (!ledger->driver->shared)
		return 0;
	ledger->driver->lock_times(ledger->conn, &taken, &released);
	if (taken != 0)
		return 0;
	/* The first statement takes the lock with it, and the clock. */
	if ((rc = db_prepare(ledger, "SELECT 1", &st, err)) < 0)
		return rc;
	return db_step_done(ledger, st, "taking the ledger's write lock", err);
}

/*
 * Run sql, one yes-or-no question as 1 or 0, on a shared ledger only;
 * else *yes is otherwise.
 */
static int
ask_shared(struct ledger *ledger, const char *sql, bool otherwise, bool *yes,
    struct err *err)
{
	int64_t value = otherwise;
	int rc = 0;

	if (ledger->driver->shared)
		rc = ledger_query_int(ledger, sql, &value, err);
	*yes = value != 0;
	return rc;
}

int
ledger_owner_may_free(struct ledger *ledger, bool *may, struct err *err)
{
	return ask_shared(ledger, "SELECT CASE WHEN pg_has_role(c.relowner, "
	    "'pg_signal_backend', 'MEMBER') AND pg_has_role(c.relowner, "
	    "'pg_read_all_stats', 'MEMBER') THEN 1 ELSE 0 END FROM pg_class c "
	    "WHERE c.oid = CAST('daicho_schema' AS regclass)", true, may, err);
}

int
ledger_public_may_temp(struct ledger *ledger, bool *may, struct err *err)
{
	return ask_shared(ledger, "SELECT CASE WHEN has_database_privilege("
	    "'public', current_database(), 'TEMPORARY') THEN 1 ELSE 0 END", false,
	    may, err);
}

int
ledger_require_judge(struct ledger *ledger, const char *what,
    struct err *err)
{
	bool person = true;
	int rc;

	if ((rc = ask_shared(ledger, "SELECT CASE WHEN daicho_is_human() THEN 1 "
	    "ELSE 0 END", true, &person, err)) < 0)
		return rc;
	if (person)
		return 0;
	return err_set(err, ERR_REFUSED, "%s is the judge's: on this "
	    "PostgreSQL ledger it runs on a person's login (daicho_human) or "
	    "the owner's, not an agent's (docs/security.md, 'The PostgreSQL "
	    "boundary')", what);
}
