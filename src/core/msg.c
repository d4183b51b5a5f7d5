/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/msg.h"

#include <stdlib.h>
#include <string.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/event.h"
#include "util/alloc.h"
#include "util/clock.h"

/* The latest agent called name, as a send sees it. */
struct addressee {
	int64_t id;           /* 0: no agent ever had the name */
	char *role;
	char *state;          /* effective: active, waiting, stale, ended */
	int64_t last_seen_ms;
	int64_t ended_ms;
};

static void
addressee_release(struct addressee *a)
{
	free(a->role);
	free(a->state);
	memset(a, 0, sizeof(*a));
}

/* Read the agent name addresses: the live one, else the latest ended. */
static int
read_addressee(struct ledger *ledger, const char *name, int64_t now,
    int64_t stale_after_ms, struct addressee *a, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	memset(a, 0, sizeof(*a));
	if ((rc = db_prepare(ledger,
	    "SELECT id, role, CASE WHEN state = 'active' AND kind <> 'human' AND"
	    " last_seen_ms <= ?2 - ?3 THEN 'stale' ELSE state END,"
	    " last_seen_ms, ended_ms FROM agents WHERE name = ?1"
	    " ORDER BY state <> 'ended' DESC, last_seen_ms DESC, id DESC LIMIT 1",
	    &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, name);
	db_bind_int(st, 2, now);
	db_bind_int(st, 3, stale_after_ms);
	rc = db_step(st);
	if (rc == DB_ROW) {
		const char *role = db_column_text(st, 1);

		a->id = db_column_int(st, 0);
		a->role = role ? xstrdup(role) : NULL;
		a->state = xstrdup(db_column_text(st, 2));
		a->last_seen_ms = db_column_int(st, 3);
		a->ended_ms = db_column_int(st, 4);
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "looking up an agent");
	return 0;
}

/*
 * The live, not stale, holders of role (a person is never stale), most
 * recently seen first, as a JSON array of {id, name, last_seen_ms}.
 */
static int
role_holders(struct ledger *ledger, const char *role, int64_t now,
    int64_t stale_after_ms, json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger,
	    "SELECT id, name, last_seen_ms FROM agents WHERE role = ?1"
	    " AND state <> 'ended' AND (state = 'waiting' OR (state = 'active'"
	    "  AND (kind = 'human' OR last_seen_ms > ?2 - ?3)))"
	    " ORDER BY last_seen_ms DESC, id DESC", &st, err)) < 0)
		return rc;
	db_bind_text(st, 1, role);
	db_bind_int(st, 2, now);
	db_bind_int(st, 3, stale_after_ms);
	return db_rows_json(ledger, st, *out, "finding a role's holders", err);
}

/* Append "a (seen 3s ago), b (seen 1m ago)" for holders to out. */
static void
add_holders(struct buf *out, json_t *holders, int64_t now)
{
	size_t i;
	json_t *h;

	json_array_foreach(holders, i, h) {
		buf_addf(out, "%s%s (seen ", i ? ", " : "",
		    json_string_value(json_object_get(h, "name")));
		clock_add_age(out, now - json_integer_value(json_object_get(h,
		    "last_seen_ms")));
		buf_adds(out, " ago)");
	}
}

int
msg_append(struct ledger *ledger, int64_t sender, int64_t recipient,
    const char *kind, const char *text, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO messages (sender, recipient, recipient_name,"
	    " addressed_to, kind, body, sent_ms, recipient_seen_ms)"
	    " SELECT ?1, id, name, name, ?3, ?4, ?5, last_seen_ms"
	    " FROM agents WHERE id = ?2", &st, err)) < 0)
		return rc;
	if (sender)
		db_bind_int(st, 1, sender);
	db_bind_int(st, 2, recipient);
	db_bind_text(st, 3, kind);
	db_bind_text(st, 4, text);
	db_bind_int(st, 5, clock_now_ms());
	return db_step_done(ledger, st, "storing a message", err);
}

/* Insert one message; append its {id, to, recipient_seen_ms, queued}. */
static int
insert_message(struct ledger *ledger, int64_t sender, int64_t recipient,
    const char *name, int64_t seen_ms, const struct msg_request *req,
    int64_t now, json_t *sent, struct err *err)
{
	struct db_stmt *st = NULL;
	int64_t id;
	int rc;

	if ((rc = db_prepare(ledger,
	    "INSERT INTO messages (sender, recipient, recipient_name,"
	    " addressed_to, body, sent_ms, recipient_seen_ms, queued, reply_to)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, sender);
	if (recipient)
		db_bind_int(st, 2, recipient);
	db_bind_text(st, 3, name);
	db_bind_text(st, 4, req->to ? req->to : name);
	db_bind_text(st, 5, req->text);
	db_bind_int(st, 6, now);
	if (seen_ms)
		db_bind_int(st, 7, seen_ms);
	db_bind_int(st, 8, req->queue && recipient == 0);
	if (req->reply_to)
		db_bind_int(st, 9, req->reply_to);
	if ((rc = db_step_done(ledger, st, "storing a message", err)) < 0)
		return rc;
	id = db_last_insert_id(ledger);
	json_array_append_new(sent, json_pack("{s:I, s:s, s:o, s:b}", "id",
	    (json_int_t)id, "to", name, "recipient_seen_ms",
	    seen_ms ? json_integer(seen_ms) : json_null(), "queued",
	    req->queue && recipient == 0));
	return 0;
}

/* Send to role:R (already stripped to role). */
static int
send_to_role(struct ledger *ledger, int64_t sender, const char *role,
    const struct msg_request *req, int64_t now, json_t *sent, struct err *err)
{
	json_t *holders = NULL, *h;
	size_t i;
	int rc;

	if ((rc = role_holders(ledger, role, now, req->stale_after_ms, &holders,
		 err)) < 0)
		goto done;
	if (json_array_size(holders) == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no live agent holds role '%s' "
		    "(see 'daicho agents --all' for who held it)", role);
		goto done;
	}
	json_array_foreach(holders, i, h) {
		if (i > 0 && req->one)
			break;
		if ((rc = insert_message(ledger, sender,
			 json_integer_value(json_object_get(h, "id")),
			 json_string_value(json_object_get(h, "name")),
			 json_integer_value(json_object_get(h, "last_seen_ms")), req,
			 now, sent, err)) < 0)
			break;
	}
done:
	json_decref(holders);
	return rc;
}

/* The refusal for a gone addressee: when seen, who holds its role now. */
static int
refuse_gone(struct ledger *ledger, const char *name, const struct addressee *a,
    int64_t now, int64_t stale_after_ms, struct err *err)
{
	struct buf why = BUF_INIT;
	json_t *holders = NULL;
	int rc;

	if (strcmp(a->state, "ended") == 0) {
		buf_adds(&why, "ended ");
		clock_add_age(&why, now - (a->ended_ms ? a->ended_ms : a->last_seen_ms));
		buf_adds(&why, " ago, ");
	} else {
		buf_adds(&why, "is stale, ");
	}
	buf_adds(&why, "last seen ");
	clock_add_timestamp(&why, a->last_seen_ms);
	buf_adds(&why, " (");
	clock_add_age(&why, now - a->last_seen_ms);
	buf_adds(&why, " ago); ");
	if (a->role == NULL) {
		buf_adds(&why, "it had no role");
	} else {
		if ((rc = role_holders(ledger, a->role, now, stale_after_ms,
			 &holders, err)) < 0)
			goto done;
		if (json_array_size(holders) == 0) {
			buf_addf(&why, "role '%s' has no live holder", a->role);
		} else {
			buf_addf(&why, "live holders of its role '%s': ", a->role);
			add_holders(&why, holders, now);
		}
	}
	rc = err_set(err, ERR_NOT_FOUND, "agent '%s' %s (send to a live agent, "
	    "or --queue to deliver it if %s comes back)", name, why.buf, name);
done:
	json_decref(holders);
	buf_release(&why);
	return rc;
}

/*
 * Inside the send's transaction: that message id is the caller's (agent
 * me: sent to it, or queued for its name) to answer, and, when *name is
 * NULL, its sender's name into *answered (then *name points at it).
 */
static int
read_answered(struct ledger *ledger, int64_t me, int64_t id,
    const char **name, struct buf *answered, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT coalesce(s.name, '') FROM messages m"
	    " LEFT JOIN agents s ON s.id = m.sender WHERE m.id = ?1"
	    " AND (m.recipient = ?2 OR (m.queued = 1 AND m.recipient_name ="
	    "  (SELECT name FROM agents WHERE id = ?2)))", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, id);
	db_bind_int(st, 2, me);
	rc = db_step(st);
	if (rc == DB_ROW)
		buf_adds(answered, db_column_text(st, 0));
	db_reset(st);
	if (rc == DB_DONE)
		return err_set(err, ERR_NOT_FOUND, "no message #%lld to you to "
		    "reply to (a reply answers a message you received: see "
		    "'daicho inbox')", (long long)id);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "reading a message");
	if (*name == NULL && answered->len == 0)
		return err_set(err, ERR_USAGE, "message #%lld is daicho's own (a "
		    "reminder): name whom the reply is for", (long long)id);
	if (*name == NULL)
		*name = answered->buf;
	return 0;
}

int
msg_send(struct ledger *ledger, const struct msg_request *request,
    json_t **sent, struct err *err)
{
	struct addressee a = { 0 };
	struct buf answered = BUF_INIT;
	int64_t sender = 0, now = clock_now_ms();
	const char *name = request->to;
	int rc;

	*sent = json_array();
	if (name != NULL && strncmp(name, "role:", 5) != 0 &&
	    (rc = agent_check_name(name, err)) < 0)
		goto done;
	if (name != NULL && strncmp(name, "role:", 5) == 0 && name[5] == '\0') {
		rc = err_set(err, ERR_USAGE, "'role:' needs a role name");
		goto done;
	}
	if ((rc = ledger_begin_as(ledger, &sender, err)) < 0)
		goto done;
	if (request->reply_to && (rc = read_answered(ledger, sender,
	    request->reply_to, &name, &answered, err)) < 0)
		goto finish;
	if (strncmp(name, "role:", 5) == 0) {
		rc = send_to_role(ledger, sender, name + 5, request, now, *sent, err);
		goto finish;
	}
	if ((rc = read_addressee(ledger, name, now, request->stale_after_ms, &a,
		 err)) < 0)
		goto finish;
	if (a.id != 0 && (strcmp(a.state, "active") == 0 ||
	    strcmp(a.state, "waiting") == 0)) {
		rc = insert_message(ledger, sender, a.id, name, a.last_seen_ms,
		    request, now, *sent, err);
	} else if (request->queue) {
		rc = insert_message(ledger, sender, 0, name, a.last_seen_ms, request,
		    now, *sent, err);
	} else if (a.id == 0) {
		rc = err_set(err, ERR_NOT_FOUND, "no agent named '%s' (see 'daicho "
		    "agents --all'; --queue keeps the message for an agent of that "
		    "name)", name);
	} else {
		rc = refuse_gone(ledger, name, &a, now, request->stale_after_ms, err);
	}
finish:
	if (rc == 0) {
		json_t *detail = json_pack("{s:s, s:O}", "to", name, "messages",
		    *sent);

		if (request->reply_to)
			json_object_set_new(detail, "reply_to",
			    json_integer(request->reply_to));
		rc = event_append(ledger, sender, "send", 0, detail, err);
	}
	if (rc < 0)
		ledger_rollback(ledger);
	else
		rc = ledger_commit(ledger, err);
done:
	addressee_release(&a);
	buf_release(&answered);
	if (rc < 0) {
		json_decref(*sent);
		*sent = NULL;
	}
	return rc;
}

/*
 * Inside a write transaction by agent me: mark read the messages of list
 * (objects with an id, or bare ids) that are unread and me's (sent to me,
 * or queued for name). Through the primary key: only these rows are read.
 */
static int
mark_read(struct ledger *ledger, int64_t me, const char *name,
    const json_t *list, int64_t *marked, struct err *err)
{
	struct db_stmt *st = NULL;
	const json_t *m;
	size_t i;
	int rc;

	if (marked)
		*marked = 0;
	if ((rc = db_prepare(ledger,
	    "UPDATE messages SET read_ms = ?3, recipient = ?1"
	    " WHERE id = ?4 AND read_ms IS NULL AND (recipient = ?1 OR"
	    "  (queued = 1 AND recipient_name = ?2))", &st, err)) < 0)
		return rc;
	json_array_foreach(list, i, m) {
		json_int_t id = json_is_integer(m) ? json_integer_value(m)
		    : json_integer_value(json_object_get(m, "id"));

		db_bind_int(st, 1, me);
		db_bind_text(st, 2, name);
		db_bind_int(st, 3, clock_now_ms());
		db_bind_int(st, 4, id);
		if ((rc = db_step_done(ledger, st, "marking messages read",
			 err)) < 0)
			return rc;
		if (marked)
			*marked += db_changes(ledger);
	}
	return 0;
}

int
msg_mark_read(struct ledger *ledger, const char *caller_name,
    const json_t *ids, int64_t *marked, struct err *err)
{
	int64_t me = 0;
	int rc;

	if ((rc = ledger_begin_as(ledger, &me, err)) < 0)
		return rc;
	if ((rc = mark_read(ledger, me, caller_name, ids, marked, err)) < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

/*
 * The caller's unread messages m (?1 the caller's id, ?2 its name): those
 * sent to it, and those queued for its name (never both).
 */
#define UNREAD_SENT " WHERE m.read_ms IS NULL AND m.recipient = ?1"
#define UNREAD_QUEUED                                                          \
	" WHERE m.read_ms IS NULL AND m.queued = 1 AND m.recipient_name = ?2"   \
	" AND m.recipient IS DISTINCT FROM ?1"

int
msg_unread_count(struct ledger *ledger, const char *caller_name,
    int64_t *count, int64_t *newest, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*count = *newest = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT count(*), coalesce(max(id), 0) FROM ("
	    " SELECT m.id FROM messages m" UNREAD_SENT " UNION ALL"
	    " SELECT m.id FROM messages m" UNREAD_QUEUED ") AS unread",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, ledger_caller(ledger));
	db_bind_text(st, 2, caller_name);
	if ((rc = db_step(st)) == DB_ROW) {
		*count = db_column_int(st, 0);
		*newest = db_column_int(st, 1);
	}
	db_reset(st);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "counting unread messages");
	return 0;
}

int
msg_unread_previews(struct ledger *ledger, const char *caller_name,
    int64_t after, int chars, json_t **out, struct err *err)
{
#define PREVIEW_COLUMNS                                                        \
	"SELECT m.id, s.name AS \"from\", m.kind, m.sent_ms,"                   \
	" length(hex(m.body)) / 2 AS bytes, substr(m.body, 1, ?4) AS preview," \
	" CASE WHEN length(m.body) > ?4 THEN 'true' ELSE 'false' END"           \
	" AS truncated_json FROM messages m LEFT JOIN agents s ON s.id = m.sender"
	struct db_stmt *st = NULL;
	int rc;

	*out = json_array();
	if ((rc = db_prepare(ledger,
	    PREVIEW_COLUMNS UNREAD_SENT " AND m.id > ?3 UNION ALL "
	    PREVIEW_COLUMNS UNREAD_QUEUED " AND m.id > ?3 ORDER BY 1",
	    &st, err)) < 0)
		goto done;
#undef PREVIEW_COLUMNS
	db_bind_int(st, 1, ledger_caller(ledger));
	db_bind_text(st, 2, caller_name);
	db_bind_int(st, 3, after);
	db_bind_int(st, 4, chars);
	rc = db_rows_json(ledger, st, *out, "reading unread messages", err);
done:
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * Which of the unread messages of me (named name) fit max_bytes of text:
 * those up to id *up_to, in order (the first always); *cut is the length
 * the first is cut to when it alone is longer (0: not cut).
 */
static int
inbox_budget(struct ledger *ledger, int64_t me, const char *name,
    size_t max_bytes, int64_t *up_to, size_t *cut, struct err *err)
{
	struct db_stmt *st = NULL;
	size_t total = 0;
	int rc;

	*up_to = 0;
	*cut = 0;
	if ((rc = db_prepare(ledger,
	    "SELECT m.id, length(hex(m.body)) / 2 FROM messages m"
	    UNREAD_SENT " UNION ALL SELECT m.id, length(hex(m.body)) / 2"
	    " FROM messages m" UNREAD_QUEUED " ORDER BY 1", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, me);
	db_bind_text(st, 2, name);
	while ((rc = db_step(st)) == DB_ROW) {
		size_t bytes = (size_t)db_column_int(st, 1);

		if (*up_to != 0 && total + bytes > max_bytes)
			break;
		if (*up_to == 0 && bytes > max_bytes)
			*cut = max_bytes;
		*up_to = db_column_int(st, 0);
		total += bytes;
	}
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, "reading the inbox");
	return 0;
}

/* Cut message m's text to at most cut bytes (whole characters). */
static void
cut_text(json_t *m, size_t cut)
{
	const char *text = json_string_value(json_object_get(m, "text"));
	size_t bytes = text ? strlen(text) : 0;

	if (bytes <= cut)
		return;
	while (cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80)
		cut--;
	json_object_set_new(m, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(m, "truncated", json_true());
	json_object_set_new(m, "text", json_stringn(text, cut));
}

/*
 * For each message of messages that answers another: its thread, the
 * messages it answers, nearest first (at most MSG_THREAD_DEPTH), as far as
 * agent me sent or received them: a reply never shows me a message that
 * was not its.
 */
#define MSG_THREAD_DEPTH 10
static int
add_threads(struct ledger *ledger, int64_t me, json_t *messages,
    struct err *err)
{
	struct db_stmt *st = NULL;
	json_t *m;
	size_t i;
	int rc = 0;

	json_array_foreach(messages, i, m) {
		json_t *thread;

		if (!json_is_integer(json_object_get(m, "reply_to")))
			continue;
		if (st == NULL && (rc = db_prepare(ledger,
		    "WITH RECURSIVE up(id, depth) AS ("
		    "  SELECT reply_to, 1 FROM messages WHERE id = ?1"
		    "  UNION ALL SELECT m.reply_to, up.depth + 1 FROM messages m"
		    "  JOIN up ON m.id = up.id"
		    "  WHERE m.reply_to IS NOT NULL AND up.depth < ?3)"
		    " SELECT m.id, s.name AS \"from\", m.body AS text, m.sent_ms"
		    " FROM up JOIN messages m ON m.id = up.id"
		    " LEFT JOIN agents s ON s.id = m.sender"
		    " WHERE m.sender = ?2 OR m.recipient = ?2 ORDER BY up.depth",
		    &st, err)) < 0)
			return rc;
		db_bind_int(st, 1, json_integer_value(json_object_get(m, "id")));
		db_bind_int(st, 2, me);
		db_bind_int(st, 3, MSG_THREAD_DEPTH);
		thread = json_array();
		json_object_set_new(m, "thread", thread);
		if ((rc = db_rows_json(ledger, st, thread, "reading a thread",
			 err)) < 0)
			return rc;
	}
	return rc;
}

int
msg_inbox(struct ledger *ledger, const char *caller_name, bool peek,
    json_t **messages, struct err *err)
{
	return msg_inbox_within(ledger, caller_name, peek, 0, messages, err);
}

int
msg_inbox_within(struct ledger *ledger, const char *caller_name, bool peek,
    size_t max_bytes, json_t **messages, struct err *err)
{
	static const char *const select_sql =
	    "SELECT m.id, s.name AS \"from\", m.recipient_name AS \"to\","
	    " m.addressed_to, m.kind, m.body AS text, m.sent_ms,"
	    " m.recipient_seen_ms,"
	    " CASE m.queued WHEN 1 THEN 'true' ELSE 'false' END AS queued_json,"
	    " m.reply_to"
	    " FROM messages m LEFT JOIN agents s ON s.id = m.sender"
	    UNREAD_SENT " AND m.id <= ?3"
	    " UNION ALL "
	    "SELECT m.id, s.name, m.recipient_name, m.addressed_to, m.kind,"
	    " m.body, m.sent_ms, m.recipient_seen_ms,"
	    " CASE m.queued WHEN 1 THEN 'true' ELSE 'false' END, m.reply_to"
	    " FROM messages m LEFT JOIN agents s ON s.id = m.sender"
	    UNREAD_QUEUED " AND m.id <= ?3"
	    " ORDER BY 1";
	struct db_stmt *st;
	int64_t me = 0, up_to = INT64_MAX;
	size_t cut = 0;
	int rc;

	*messages = json_array();
	/* One SELECT is a consistent snapshot: a peek needs no transaction. */
	if (peek)
		me = ledger_caller(ledger);
	else if ((rc = ledger_begin_as(ledger, &me, err)) < 0) {
		goto done;
	}
	if (max_bytes > 0 && (rc = inbox_budget(ledger, me, caller_name,
	    max_bytes, &up_to, &cut, err)) < 0)
		goto finish;
	if ((rc = db_prepare(ledger, select_sql, &st, err)) < 0)
		goto finish;
	db_bind_int(st, 1, me);
	db_bind_text(st, 2, caller_name);
	db_bind_int(st, 3, up_to);
	if ((rc = db_rows_json(ledger, st, *messages, "reading the inbox",
		 err)) < 0)
		goto finish;
	if (cut > 0)
		cut_text(json_array_get(*messages, 0), cut);
	if ((rc = add_threads(ledger, me, *messages, err)) < 0)
		goto finish;
	if (peek || json_array_size(*messages) == 0)
		goto finish;
	rc = mark_read(ledger, me, caller_name, *messages, NULL, err);
finish:
	if (!peek && rc < 0)
		ledger_rollback(ledger);
	else if (!peek)
		rc = ledger_commit(ledger, err);
done:
	if (rc < 0) {
		json_decref(*messages);
		*messages = NULL;
	}
	return rc;
}
