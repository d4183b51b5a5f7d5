/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Transactions (core/ledger.h): the outermost is the driver's, a nested
 * one is a savepoint, taken when the driver says (eagerly, or before the
 * level's first write); and the write lock's trace for $DAICHO_TRACE_LOCK.
 */
#include "core/ledger_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/bug.h"
#include "util/clock.h"
#include "util/path.h"

/* The driver's error for rc, about what (ledger_error(), without a call up). */
static int
fail(struct ledger *ledger, int rc, const char *what, struct err *err)
{
	return ledger->driver->error(ledger->conn, ledger->path, rc, what, err);
}

/*
 * Whether the engine ended the open transaction on its own: some errors
 * (a full disk, I/O, out of memory, an interrupt; a lost connection) roll
 * back the whole transaction, savepoints and all. Nested levels must then
 * refuse to go on: a savepoint begun now would start a new transaction and
 * its release would commit it.
 */
static bool
aborted(const struct ledger *ledger)
{
	return ledger->in_transaction && ledger->driver->aborted(ledger->conn);
}

static int
aborted_error(const struct ledger *ledger, struct err *err)
{
	if (ledger->driver->connection_lost(ledger->conn))
		return err_set(err, ERR_BUSY, "the connection to the ledger was "
		    "lost (%s); nothing of the transaction was written; retry",
		    ledger->driver->errmsg(ledger->conn));
	return err_set(err, ERR_FAILED, "the transaction was rolled back by an "
	    "earlier error; nothing of it was written");
}

/* For $DAICHO_TRACE_LOCK: one write transaction asked for the lock and
 * waited waited_us for it (held or not). */
static void
note_wait(struct ledger *ledger, int64_t waited_us)
{
	ledger->transactions++;
	ledger->wait_us_total += waited_us;
	if (waited_us > ledger->wait_us_max)
		ledger->wait_us_max = waited_us;
}

/*
 * For $DAICHO_TRACE_LOCK, at the end of a write transaction: its lock,
 * asked for at ledger->lock_asked_us, was taken and let go when the
 * driver says (let go now, when it does not know). A transaction that sent
 * nothing took no lock.
 */
static void
note_lock(struct ledger *ledger)
{
	int64_t taken = 0, released = 0;

	ledger->driver->lock_times(ledger->conn, &taken, &released);
	if (taken == 0 || taken < ledger->lock_asked_us)
		return;
	if (released < taken)
		released = clock_mono_us();
	note_wait(ledger, taken - ledger->lock_asked_us);
	ledger->hold_us_total += released - taken;
}

/*
 * $DAICHO_TRACE_LOCK=FILE: append one line per connection, for measuring
 * contention: "pid transactions wait_us_max wait_us_total hold_us_total".
 */
void
ledger_trace_lock(const struct ledger *ledger)
{
	char line[128];
	int n;

	if (ledger->transactions == 0 || getenv("DAICHO_TRACE_LOCK") == NULL)
		return;
	n = snprintf(line, sizeof(line), "%ld %lld %lld %lld %lld\n",
	    (long)getpid(), (long long)ledger->transactions,
	    (long long)ledger->wait_us_max, (long long)ledger->wait_us_total,
	    (long long)ledger->hold_us_total);
	path_trace_line("DAICHO_TRACE_LOCK", line, (size_t)n);
}

/*
 * A nested begin: a savepoint at once with eager_savepoints; else the
 * savepoint waits for the level's first write (ledger_cover_write()): a
 * level that only reads, or that fails before writing (nothing to claim),
 * needs nothing undone. A write needs the outer transaction to be a
 * write one (holding the lock).
 */
static int
begin_nested(struct ledger *ledger, bool write, struct err *err)
{
	int rc;

	if (aborted(ledger))
		return aborted_error(ledger, err);
	if (write && !ledger->writing)
		return err_set(err, ERR_FAILED,
		    "internal: a write nested inside a read transaction");
	if (ledger->driver->eager_savepoints) {
		if ((rc = ledger->driver->savepoint(ledger->conn)) != 0)
			return fail(ledger, rc, "starting a transaction", err);
		ledger->covered = ledger->nesting + 1;
	}
	ledger->nesting++;
	return 0;
}

int
ledger_cover_write(struct ledger *ledger)
{
	int rc;

	while (!ledger->all_or_nothing && ledger->covered < ledger->nesting) {
		if ((rc = ledger->driver->savepoint(ledger->conn)) != 0)
			return rc;
		ledger->covered++;
	}
	ledger->covered = ledger->nesting;
	return 0;
}

/* The end of the innermost nested level: covered shrinks with it. */
static void
end_nested(struct ledger *ledger)
{
	BUG_ON(ledger->nesting <= 0, "ending a nested level where none is open");
	if (ledger->covered >= ledger->nesting)
		ledger->covered = ledger->nesting - 1;
	ledger->nesting--;
}

int
ledger_begin(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return begin_nested(ledger, true, err);
	if (ledger->prepare_hook &&
	    (rc = ledger->prepare_hook(ledger, ledger->begin_hook_arg, err)) < 0)
		return rc;
	ledger->lock_asked_us = clock_mono_us();
	if ((rc = ledger->driver->begin_write(ledger->conn, err)) < 0) {
		/* A wait that ended without the lock is the worst: traced too. */
		note_wait(ledger, clock_mono_us() - ledger->lock_asked_us);
		return rc;
	}
	ledger->in_transaction = true;
	ledger->writing = true;
	if (ledger->begin_hook &&
	    (rc = ledger->begin_hook(ledger, ledger->begin_hook_arg, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return 0;
}

int
ledger_begin_all_or_nothing(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return err_set(err, ERR_FAILED, "internal: an all-or-nothing "
		    "transaction must be the outermost");
	if ((rc = ledger_begin(ledger, err)) == 0 &&
	    !ledger->driver->eager_savepoints)
		ledger->all_or_nothing = true;
	return rc;
}

int
ledger_begin_as(struct ledger *ledger, int64_t *agent, struct err *err)
{
	int rc = ledger_begin(ledger, err);

	if (rc == 0 && *agent == 0)
		*agent = ledger->caller;
	return rc;
}

int
ledger_begin_read(struct ledger *ledger, struct err *err)
{
	int rc;

	if (ledger->in_transaction)
		return begin_nested(ledger, false, err);
	if ((rc = ledger->driver->begin_read(ledger->conn)) != 0)
		return fail(ledger, rc, "reading the ledger", err);
	ledger->in_transaction = true;
	return 0;
}

/* The commit of a nested level: its savepoint released. */
static int
commit_nested(struct ledger *ledger, struct err *err)
{
	int rc;

	if (aborted(ledger)) {
		end_nested(ledger);
		return aborted_error(ledger, err);
	}
	if (ledger->covered >= ledger->nesting && !ledger->all_or_nothing &&
	    (rc = ledger->driver->release(ledger->conn)) != 0) {
		fail(ledger, rc, "committing", err);
		ledger_rollback(ledger);
		return -(int)err->code;
	}
	end_nested(ledger);
	return 0;
}

int
ledger_commit(struct ledger *ledger, struct err *err)
{
	int rc;

	BUG_ON(!ledger->in_transaction, "a commit outside a transaction");
	if (ledger->nesting > 0)
		return commit_nested(ledger, err);
	if (aborted(ledger)) {
		ledger_rollback(ledger);
		return aborted_error(ledger, err);
	}
	if (ledger->doomed) {
		ledger_rollback(ledger);
		return err_set(err, ERR_FAILED, "internal: a part of an "
		    "all-or-nothing transaction failed after writing, and the "
		    "transaction went on; nothing of it was written");
	}
	rc = ledger->driver->commit(ledger->conn, ledger->writing);
	if (rc != 0 && ledger->driver->connection_lost(ledger->conn)) {
		/* The server may have committed before the answer was lost. */
		err_set(err, ERR_BUSY, "the connection to the ledger was lost while "
		    "committing (%s): the change may or may not have been made; "
		    "look ('daicho ls --mine', 'daicho events') before retrying",
		    ledger->driver->errmsg(ledger->conn));
		ledger_rollback(ledger);
		return -(int)err->code;
	}
	if (rc != 0) {
		fail(ledger, rc, "committing", err);
		ledger_rollback(ledger);
		return -(int)err->code;
	}
	ledger->in_transaction = false;
	ledger->forget_on_rollback = NULL;
	ledger->all_or_nothing = false;
	if (ledger->writing) {
		ledger->commits++;
		note_lock(ledger);
	}
	ledger->writing = false;
	return 0;
}

void
ledger_rollback(struct ledger *ledger)
{
	if (ledger->nesting > 0) {
		if (ledger->covered >= ledger->nesting && ledger->all_or_nothing)
			ledger->doomed = true;
		else if (ledger->covered >= ledger->nesting && !aborted(ledger)) {
			ledger->driver->rollback_to(ledger->conn);
			ledger->driver->release(ledger->conn);
		}
		end_nested(ledger);
		return;
	}
	if (ledger->in_transaction) {
		ledger->driver->rollback(ledger->conn);
		if (ledger->writing)
			note_lock(ledger);
	}
	if (ledger->in_transaction && ledger->forget_on_rollback) {
		*ledger->forget_on_rollback = 0;
		ledger->caller = 0;
	}
	ledger->forget_on_rollback = NULL;
	ledger->in_transaction = false;
	ledger->writing = false;
	ledger->all_or_nothing = ledger->doomed = false;
}
