/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/gate.h"

#include <string.h>

#include "core/db.h"
#include "core/event.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/glob.h"

int
gate_add(struct ledger *ledger, const struct gate_spec *spec, int64_t *id,
    struct err *err)
{
	struct strlist words = STRLIST_INIT;
	struct buf why = BUF_INIT;
	json_t *requires = json_array();
	int64_t me = 0, existing = 0;
	struct db_stmt *st;
	char *requires_text = NULL;
	int rc;

	if (strncmp(spec->pattern, GATE_LAND_PREFIX,
	    strlen(GATE_LAND_PREFIX)) == 0) {
		const char *glob = spec->pattern + strlen(GATE_LAND_PREFIX);

		if (*glob == '\0' || glob_check(glob, &why) < 0) {
			rc = err_set(err, ERR_USAGE, "invalid path glob '%s' for a "
			    "gate on landing (%s)", glob, why.len ? why.buf : "empty");
			goto done;
		}
		if (!spec->approval || spec->require_count > 0) {
			rc = err_set(err, ERR_USAGE, "a gate on landing takes "
			    "--approval, and no --require (the land-check is the "
			    "command every landing runs: 'daicho config land-check')");
			goto done;
		}
	} else if (cmdline_pattern_check(spec->pattern, &words, &why) < 0) {
		rc = err_set(err, ERR_USAGE, "invalid gate pattern '%s' (%s)",
		    spec->pattern, why.buf);
		goto done;
	}
	for (size_t i = 0; i < spec->require_count; i++) {
		if (*spec->requires[i] == '\0') {
			rc = err_set(err, ERR_USAGE, "empty --require");
			goto done;
		}
		json_array_append_new(requires, json_string(spec->requires[i]));
	}
	if (!spec->approval && spec->require_count == 0) {
		rc = err_set(err, ERR_USAGE, "a gate needs --approval or --require "
		    "(else it stops nothing)");
		goto done;
	}
	requires_text = json_dumps(requires, JSON_COMPACT);
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		goto done;
	if ((rc = db_prepare(ledger, "SELECT id FROM gates WHERE pattern = ?",
	    &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, spec->pattern);
	if ((rc = db_step_int(ledger, st, &existing, NULL, "reading gates",
		 err)) < 0)
		goto fail;
	if (existing) {
		rc = err_set(err, ERR_CONFLICT, "gate #%lld already has the pattern "
		    "'%s' (remove it first: 'daicho gate rm %lld')",
		    (long long)existing, spec->pattern, (long long)existing);
		goto fail;
	}
	if ((rc = db_prepare(ledger,
		 "INSERT INTO gates (pattern, approval, requires, note, created_ms,"
		 " created_by) VALUES (?, ?, ?, ?, ?, ?)", &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, spec->pattern);
	db_bind_int(st, 2, spec->approval);
	db_bind_text(st, 3, requires_text);
	if (spec->note)
		db_bind_text(st, 4, spec->note);
	db_bind_int(st, 5, clock_now_ms());
	db_bind_int(st, 6, me);
	if ((rc = db_step_done(ledger, st, "adding a gate", err)) < 0)
		goto fail;
	*id = db_last_insert_id(ledger);
	if ((rc = event_append(ledger, me, "gate-add", 0,
		 json_pack("{s:I, s:s, s:b, s:O}", "gate", (json_int_t)*id,
		     "pattern", spec->pattern, "approval", spec->approval,
		     "requires", requires), err)) < 0)
		goto fail;
	rc = ledger_commit(ledger, err);
	goto done;
fail:
	ledger_rollback(ledger);
done:
	free(requires_text);
	json_decref(requires);
	strlist_release(&words);
	buf_release(&why);
	return rc;
}

int
gate_remove(struct ledger *ledger, int64_t id, json_t *checked,
    struct err *err)
{
	int64_t me = 0, removed = 0;
	int rc;

	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	/* Requests keep their history; they no longer name the gate. */
	if ((rc = db_write(ledger,
		 "UPDATE approvals SET gate = NULL WHERE gate = ?1", id, 0, NULL,
		 "removing a gate", err)) < 0 ||
	    (rc = db_write(ledger, "DELETE FROM gates WHERE id = ?1", id, 0,
		 &removed, "removing a gate", err)) < 0)
		goto fail;
	if (removed == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no gate #%lld (see 'daicho gate "
		    "ls')", (long long)id);
		goto fail;
	}
	if ((rc = event_append(ledger, me, "gate-rm", 0,
		 json_pack("{s:I, s:O?}", "gate", (json_int_t)id, "checked",
		     checked), err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
gate_list(struct ledger *ledger, json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger,
	    "SELECT g.id, g.pattern,"
	    " CASE g.approval WHEN 1 THEN 'true' ELSE 'false' END AS approval_json,"
	    " g.requires AS requires_json,"
	    " g.note, g.created_ms, a.name AS created_by"
	    " FROM gates g LEFT JOIN agents a ON a.id = g.created_by"
	    " ORDER BY g.id", &st, err)) < 0)
		return rc;
	return db_rows_json(ledger, st, *out, "reading gates", err);
}

int
gate_match(struct ledger *ledger, const struct cmdline *line, json_t **matching,
    struct err *err)
{
	json_t *all = NULL, *g;
	size_t i;
	int rc;

	*matching = json_array();
	if ((rc = gate_list(ledger, &all, err)) < 0)
		goto done;
	json_array_foreach(all, i, g) {
		struct strlist words = STRLIST_INIT;
		struct buf why = BUF_INIT;

		if (strncmp(json_string_value(json_object_get(g, "pattern")),
		    GATE_LAND_PREFIX, strlen(GATE_LAND_PREFIX)) == 0)
			continue; /* a gate on landing, not on commands */
		/* A stored pattern that no longer parses stops everything. */
		if (cmdline_pattern_check(json_string_value(json_object_get(g,
			"pattern")), &words, &why) < 0 || cmdline_matches(&words, line))
			json_array_append(*matching, g);
		strlist_release(&words);
		buf_release(&why);
	}
done:
	json_decref(all);
	return rc;
}

/*
 * Step st to the end and put its first row (an object, as db_rows_json()
 * makes) in *row, a new reference, or NULL when there is none. Returns 0
 * or the mapped error about what.
 */
static int
first_row(struct ledger *ledger, struct db_stmt *st, json_t **row,
    const char *what, struct err *err)
{
	json_t *rows = json_array();
	int rc;

	if ((rc = db_rows_json(ledger, st, rows, what, err)) == 0 &&
	    json_array_size(rows) > 0)
		*row = json_incref(json_array_get(rows, 0));
	json_decref(rows);
	return rc;
}

int
approval_find_denial(struct ledger *ledger, const struct approval_key *key,
    json_t **denial, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*denial = NULL;
	if ((rc = db_prepare(ledger,
	    "SELECT d.id, d.decided_by, d.decided_tty, d.decided_ms, d.reason,"
	    " r.name AS requester FROM approvals d INDEXED BY approvals_denied"
	    " JOIN agents r ON r.id = d.requester"
	    " WHERE d.command_key = ?1 AND d.state = 'denied'"
	    " AND NOT EXISTS (SELECT 1 FROM approvals a"
	    "  INDEXED BY approvals_fingerprint WHERE"
	    "  a.fingerprint = ?2 AND a.requester = ?3"
	    "  AND a.state IN ('approved','used') AND (a.decided_ms > d.decided_ms"
	    "  OR (a.decided_ms = d.decided_ms AND a.id > d.id)))"
	    " ORDER BY d.decided_ms DESC, d.id DESC LIMIT 1", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, key->command_key);
	db_bind_text(st, 2, key->fingerprint);
	db_bind_int(st, 3, ledger_caller(ledger));
	return first_row(ledger, st, denial, "reading denials", err);
}

int
approval_find_granted(struct ledger *ledger, const struct approval_key *key,
    json_t **approval, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*approval = NULL;
	if ((rc = db_prepare(ledger,
	    "SELECT id, condition, decided_by, expires_ms FROM approvals"
	    " WHERE fingerprint = ?1 AND requester = ?2 AND state = 'approved'"
	    " AND expires_ms > ?3 ORDER BY id LIMIT 1", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, key->fingerprint);
	db_bind_int(st, 2, ledger_caller(ledger));
	db_bind_int(st, 3, clock_now_ms());
	return first_row(ledger, st, approval, "reading approvals", err);
}

int
approval_use(struct ledger *ledger, int64_t id, struct err *err)
{
	int64_t me = 0, now = clock_now_ms();
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
		 "UPDATE approvals SET state = 'used', used_ms = ?3"
		 " WHERE id = ?1 AND requester = ?2 AND state = 'approved'"
		 " AND expires_ms > ?3", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, me);
	db_bind_int(st, 3, now);
	if ((rc = db_step_done(ledger, st, "using an approval", err)) < 0)
		goto fail;
	if (db_changes(ledger) == 0) {
		rc = err_set(err, ERR_CONFLICT, "approval #%lld is no longer usable "
		    "(used or expired; see 'daicho approvals')", (long long)id);
		goto fail;
	}
	if ((rc = event_append(ledger, me, "approval-used", 0,
		 json_pack("{s:I}", "approval", (json_int_t)id), err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

/*
 * The ERR_REFUSED for a standing denial; request is the caller's pending
 * request a human may approve to lift it.
 */
static int
refuse_denied(const struct approval_key *key, const json_t *denial,
    int64_t request, struct err *err)
{
	struct buf when = BUF_INIT, command = BUF_INIT, reason = BUF_INIT;
	const char *why = json_string_value(json_object_get(denial, "reason"));
	int rc;

	clock_add_timestamp(&when, json_integer_value(json_object_get(denial,
	    "decided_ms")));
	buf_add_oneline(&command, key->command);
	if (why)
		buf_add_oneline(&reason, why);
	rc = err_set(err, ERR_REFUSED, "'%s' was denied by %s on %s at %s "
	    "(approval #%lld, requested by %s)%s%s%s; not run (only a human "
	    "approving request #%lld lifts it)", command.buf,
	    json_string_value(json_object_get(denial, "decided_by")),
	    json_string_value(json_object_get(denial, "decided_tty")), when.buf,
	    (long long)json_integer_value(json_object_get(denial, "id")),
	    json_string_value(json_object_get(denial, "requester")),
	    why ? ": \"" : "", reason.buf, why ? "\"" : "", (long long)request);
	buf_release(&when);
	buf_release(&command);
	buf_release(&reason);
	return rc;
}

/*
 * Inside the caller's transaction: records a pending request for key by
 * requester at now, and its approval-request event; *id is the request's.
 * Returns 0 or a negative ERR_*.
 */
static int
insert_request(struct ledger *ledger, const struct approval_key *key,
    int64_t requester, int64_t now, int64_t *id, struct err *err)
{
	struct db_stmt *st;
	int rc;

	if ((rc = db_prepare(ledger,
		 "INSERT INTO approvals (fingerprint, command_key, command, cwd,"
		 " gate, requester, requested_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
		 &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, key->fingerprint);
	db_bind_text(st, 2, key->command_key);
	db_bind_text(st, 3, key->command);
	db_bind_text(st, 4, key->cwd);
	if (key->gate)
		db_bind_int(st, 5, key->gate);
	db_bind_int(st, 6, requester);
	db_bind_int(st, 7, now);
	if ((rc = db_step_done(ledger, st, "requesting an approval", err)) < 0)
		return rc;
	*id = db_last_insert_id(ledger);
	return event_append(ledger, requester, "approval-request", 0,
	    json_pack("{s:I, s:s, s:s}", "approval", (json_int_t)*id,
		"command", key->command, "cwd", key->cwd), err);
}

int
approval_request(struct ledger *ledger, const struct approval_key *key,
    int64_t *id, bool *created, struct err *err)
{
	json_t *denial = NULL;
	int64_t me = 0;
	struct db_stmt *st;
	int rc;

	*created = false;
	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = approval_find_denial(ledger, key, &denial, err)) < 0)
		goto fail;
	if ((rc = db_prepare(ledger,
		 "SELECT id FROM approvals WHERE fingerprint = ? AND requester = ?"
		 " AND state = 'pending' ORDER BY id LIMIT 1", &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, key->fingerprint);
	db_bind_int(st, 2, me);
	if ((rc = db_step_int(ledger, st, id, NULL, "reading approvals",
		 err)) < 0)
		goto fail;
	if (*id != 0) {
		ledger_rollback(ledger);
		goto done;
	}
	if ((rc = insert_request(ledger, key, me, clock_now_ms(), id,
		 err)) < 0)
		goto fail;
	*created = true;
	if ((rc = ledger_commit(ledger, err)) < 0)
		goto done;
done:
	/*
	 * A standing denial refuses at once; the request is kept all the
	 * same, so that a human can lift the denial by approving it.
	 */
	if (denial)
		rc = refuse_denied(key, denial, *id, err);
	json_decref(denial);
	return rc;
fail:
	json_decref(denial);
	ledger_rollback(ledger);
	return rc;
}

int
approval_decide(struct ledger *ledger, int64_t id,
    const struct approval_decision *d, struct err *err)
{
	int64_t me = 0, now = clock_now_ms();
	json_t *decided;
	struct db_stmt *st;
	int rc;

	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
		 "UPDATE approvals SET state = ?2, decided_ms = ?3, decided_by = ?4,"
		 " decided_tty = ?5, condition = ?6, reason = ?7, expires_ms = ?8"
		 " WHERE id = ?1 AND state = 'pending'", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, id);
	db_bind_text(st, 2, d->approve ? "approved" : "denied");
	db_bind_int(st, 3, now);
	db_bind_text(st, 4, d->user);
	db_bind_text(st, 5, d->tty);
	if (d->condition)
		db_bind_text(st, 6, d->condition);
	if (d->reason)
		db_bind_text(st, 7, d->reason);
	if (d->approve)
		db_bind_int(st, 8, now + d->ttl_ms);
	if ((rc = db_step_done(ledger, st, "deciding an approval", err)) < 0)
		goto fail;
	if (db_changes(ledger) == 0) {
		struct db_stmt *q = NULL;
		const char *state;

		if ((rc = db_prepare(ledger,
		    "SELECT state FROM approvals WHERE id = ?", &q, err)) < 0)
			goto fail;
		db_bind_int(q, 1, id);
		if (db_step(q) == DB_ROW &&
		    (state = db_column_text(q, 0)) != NULL)
			rc = err_set(err, ERR_CONFLICT, "approval #%lld is %s, not "
			    "pending (see 'daicho approvals')", (long long)id,
			    state);
		else
			rc = err_set(err, ERR_NOT_FOUND, "no approval #%lld (see "
			    "'daicho approvals')", (long long)id);
		db_reset(q);
		goto fail;
	}
	/* The command decided, so that the record reads on its own. */
	if ((rc = db_prepare(ledger,
		 "SELECT command FROM approvals WHERE id = ?", &st, err)) < 0)
		goto fail;
	db_bind_int(st, 1, id);
	rc = db_step(st);
	decided = json_pack("{s:I, s:s, s:s, s:s?, s:s?, s:O?, s:s?}",
	    "approval", (json_int_t)id, "by", d->user, "tty", d->tty, "if",
	    d->condition, "reason", d->reason, "checked", d->checked, "command",
	    rc == DB_ROW ? db_column_text(st, 0) : NULL);
	db_reset(st);
	if (rc != DB_ROW) {
		json_decref(decided);
		rc = db_error(ledger, rc, err, "reading an approval");
		goto fail;
	}
	if ((rc = event_append(ledger, me, d->approve ? "approve" : "deny", 0,
		 decided, err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
approval_list(struct ledger *ledger, int64_t limit, json_t **out,
    struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger,
	    "SELECT a.id, a.state, a.command, a.cwd, a.gate, g.pattern,"
	    " r.name AS requester, a.requested_ms, a.decided_ms, a.decided_by,"
	    " a.decided_tty, a.condition, a.reason, a.expires_ms, a.used_ms"
	    " FROM approvals a JOIN agents r ON r.id = a.requester"
	    " LEFT JOIN gates g ON g.id = a.gate"
	    " WHERE a.state = 'pending' OR a.id IN (SELECT id FROM approvals"
	    "  WHERE state <> 'pending' ORDER BY id DESC LIMIT ?1)"
	    " ORDER BY a.state <> 'pending', a.id", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, limit > 0 ? limit : INT64_MAX);
	return db_rows_json(ledger, st, *out, "reading approvals", err);
}

int
gate_land_globs(struct ledger *ledger, struct strlist *globs,
    struct strlist *ids, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT id, pattern FROM gates WHERE approval <> 0"
	    " AND substr(pattern, 1, 5) = 'land:' ORDER BY id", &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		struct buf id = BUF_INIT;

		buf_addf(&id, "%lld", (long long)db_column_int(st, 0));
		strlist_add(globs, db_column_text(st, 1) + strlen(GATE_LAND_PREFIX));
		strlist_add(ids, id.buf);
		buf_release(&id);
	}
	db_reset(st);
	return rc == DB_DONE ? 0 : db_error(ledger, rc, err, "reading gates");
}

int
landing_approval(struct ledger *ledger, int64_t actor,
    const struct approval_key *key, int64_t *id, enum landing_approval *state,
    struct buf *reason, struct err *err)
{
	int64_t now = clock_now_ms();
	struct db_stmt *st;
	int rc;

	*id = 0;
	*state = LANDING_PENDING;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		return rc;
	if ((rc = db_prepare(ledger,
	    "SELECT id, state, coalesce(reason, ''), coalesce(decided_by, '')"
	    " FROM approvals WHERE fingerprint = ?1 AND (state = 'pending'"
	    " OR state = 'denied' OR (state = 'approved' AND expires_ms > ?2))"
	    " ORDER BY id DESC LIMIT 1", &st, err)) < 0)
		goto fail;
	db_bind_text(st, 1, key->fingerprint);
	db_bind_int(st, 2, now);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *s = db_column_text(st, 1);

		*id = db_column_int(st, 0);
		*state = strcmp(s, "approved") == 0 ? LANDING_APPROVED
		       : strcmp(s, "denied") == 0 ? LANDING_DENIED
						  : LANDING_PENDING;
		if (*state == LANDING_DENIED)
			buf_addf(reason, "%s%s%s", db_column_text(st, 3),
			    *db_column_text(st, 2) ? ": " : "",
			    db_column_text(st, 2));
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE) {
		rc = db_error(ledger, rc, err, "reading approvals");
		goto fail;
	}
	if (*id != 0) {
		ledger_rollback(ledger);
		return 0;
	}
	if ((rc = insert_request(ledger, key, actor, now, id, err)) < 0)
		goto fail;
	return ledger_commit(ledger, err);
fail:
	ledger_rollback(ledger);
	return rc;
}

int
landing_approval_use(struct ledger *ledger, int64_t actor, int64_t id,
    struct err *err)
{
	int64_t changes = 0;
	int rc = db_write(ledger, "UPDATE approvals SET state = 'used',"
	    " used_ms = ?2 WHERE id = ?1 AND state = 'approved'"
	    " AND expires_ms > ?2", id, clock_now_ms(), &changes,
	    "using an approval", err);

	if (rc == 0 && changes == 0)
		rc = err_set(err, ERR_CONFLICT, "approval #%lld is no longer usable "
		    "(used or expired; see 'daicho approvals')", (long long)id);
	if (rc == 0)
		rc = event_append(ledger, actor, "approval-used", 0,
		    json_pack("{s:I}", "approval", (json_int_t)id), err);
	return rc;
}
