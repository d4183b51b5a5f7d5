/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The questions asked of the ledger as a whole (core/ledger.h), through
 * the statement interface like any module's: its schema's version, the
 * write lock held now, and, where the engine has logins, what they may
 * do (the driver says how to ask).
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
 * Ask sql, the driver's yes-or-no question as 1 or 0; where the driver
 * has no such question (NULL), *yes is otherwise.
 */
static int
ask_driver(struct ledger *ledger, const char *sql, bool otherwise, bool *yes,
    struct err *err)
{
	int64_t value = otherwise;
	int rc = 0;

	if (sql != NULL)
		rc = ledger_query_int(ledger, sql, &value, err);
	*yes = value != 0;
	return rc;
}

int
ledger_owner_may_free(struct ledger *ledger, bool *may, struct err *err)
{
	return ask_driver(ledger, ledger->driver->owner_may_free_sql, true, may,
	    err);
}

int
ledger_public_may_temp(struct ledger *ledger, bool *may, struct err *err)
{
	return ask_driver(ledger, ledger->driver->public_may_temp_sql, false,
	    may, err);
}

int
ledger_require_judge(struct ledger *ledger, const char *what,
    struct err *err)
{
	bool person = true;
	int rc;

	if ((rc = ask_driver(ledger, ledger->driver->login_is_person_sql, true,
	    &person, err)) < 0)
		return rc;
	if (person)
		return 0;
	return err_set(err, ERR_REFUSED, "%s is the judge's: on this "
	    "%s ledger it runs on a person's login (daicho_human) or the "
	    "owner's, not an agent's (docs/security.md, 'The PostgreSQL "
	    "boundary')", what, ledger->driver->name);
}
