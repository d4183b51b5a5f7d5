/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/needs.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "core/db.h"
#include "util/buf.h"
#include "util/clock.h"

/* The longest stretch of a person's or an agent's text put in a summary. */
#define NEEDS_QUOTE_BYTES 100

/*
 * One kind of item: the query that finds them (columns id, since_ms and
 * the kind's details, oldest first; ?1 is now, ?2 the stale-after time; a
 * column "kind" overrides name) and what a person reads and runs.
 */
struct need_kind {
	const char *name;
	const char *sql;
	/* Append the summary of item to summary, its commands to resolve. */
	void (*describe)(const json_t *item, const struct needs_options *options,
	    int64_t now_ms, struct buf *summary, json_t *resolve);
	const char *inspect; /* "daicho show %lld"-like, with the id; or NULL */
};

static const char *
str(const json_t *item, const char *key, const char *fallback)
{
	const char *s = json_string_value(json_object_get(item, key));

	return s ? s : fallback;
}

static int64_t
num(const json_t *item, const char *key)
{
	return json_integer_value(json_object_get(item, key));
}

/* Append text as one line, cut to NEEDS_QUOTE_BYTES with "...". */
static void
add_quote(struct buf *out, const char *text)
{
	size_t len = strlen(text);
	struct buf cut = BUF_INIT;

	if (len > NEEDS_QUOTE_BYTES) {
		len = NEEDS_QUOTE_BYTES;
		/* Never end inside a UTF-8 sequence. */
		while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
	}
	buf_add(&cut, text, len);
	buf_add_oneline(out, cut.buf);
	if (len < strlen(text))
		buf_adds(out, "...");
	buf_release(&cut);
}

/* Append the item's task: "#ID TITLE" (its id and title fields). */
static void
add_task_ref(struct buf *out, const json_t *item)
{
	buf_addf(out, "#%lld ", (long long)num(item, "id"));
	add_quote(out, str(item, "title", ""));
}

/* Append one command, printf-style, to resolve. */
static void
add_command(json_t *resolve, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
add_command(json_t *resolve, const char *fmt, ...)
{
	struct buf command = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&command, fmt, ap);
	va_end(ap);
	json_array_append_new(resolve, json_string(command.buf));
	buf_release(&command);
}

static void
describe_approval(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");

	buf_addf(summary, "approval #%lld: %s asks to run '", id,
	    str(item, "requester", "?"));
	add_quote(summary, str(item, "command", ""));
	buf_adds(summary, "' in ");
	add_quote(summary, str(item, "cwd", "?"));
	if (json_is_string(json_object_get(item, "gate"))) {
		buf_adds(summary, " (gate '");
		add_quote(summary, str(item, "gate", ""));
		buf_adds(summary, "')");
	}
	/* A retry after a denial: the same item, with the denial it follows. */
	if (json_is_true(json_object_get(item, "denied_before"))) {
		buf_addf(summary, "; asked again after #%lld was denied (by %s, ",
		    (long long)num(item, "denied_id"), str(item, "denied_by", "?"));
		clock_add_age(summary, now_ms - num(item, "denied_ms"));
		buf_adds(summary, " ago");
		if (str(item, "denied_reason", NULL) != NULL) {
			buf_adds(summary, ": '");
			add_quote(summary, str(item, "denied_reason", ""));
			buf_adds(summary, "'");
		}
		buf_adds(summary, "), so refused for now (approving lifts the "
		    "denial)");
	}
	add_command(resolve, "daicho approve %lld", id);
	add_command(resolve, "daicho deny %lld", id);
}

static void
describe_blocked(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");
	const char *reason = str(item, "reason", "no reason given");
	/*
	 * Blocked by the sweep, not its holder: its checks prove nothing, or
	 * the work changes what they read and nobody drew its scope.
	 */
	bool vacuous = strncmp(reason, "vacuous:", 8) == 0;
	bool unscoped = strncmp(reason, "unscoped:", 9) == 0;

	if (vacuous)
		buf_addf(summary, "#%lld's checks passed before its work too "
		    "(held by %s)", id, str(item, "owner", "nobody"));
	else if (unscoped)
		buf_addf(summary, "#%lld's work changes what its checks read, and "
		    "it has no scope (held by %s)", id, str(item, "owner",
		    "nobody"));
	else
		buf_addf(summary, "#%lld blocked", id);
	if (!vacuous && !unscoped &&
	    json_is_string(json_object_get(item, "owner")))
		buf_addf(summary, " by %s", str(item, "owner", ""));
	buf_adds(summary, ": ");
	add_quote(summary, str(item, "title", ""));
	buf_adds(summary, " (");
	add_quote(summary, reason);
	buf_adds(summary, ")");
	if (vacuous) {
		add_command(resolve, "daicho edit %lld --done-when ...", id);
		add_command(resolve, "daicho edit %lld --no-baseline", id);
	} else if (unscoped) {
		add_command(resolve, "daicho edit %lld --touches ...", id);
	}
	add_command(resolve, "daicho unblock %lld", id);
	add_command(resolve, "daicho release %lld --force", id);
}

static void
describe_message(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	const char *to = str(item, "to", "?");
	const char *addressed = str(item, "addressed_to", to);

	buf_addf(summary, "message #%lld from %s to %s",
	    (long long)num(item, "id"), str(item, "from", "daicho"), addressed);
	if (strcmp(addressed, to) != 0)
		buf_addf(summary, " (%s)", to);
	buf_adds(summary, ": ");
	add_quote(summary, str(item, "text", ""));
	if (options->human_name && strcmp(options->human_name, to) == 0)
		add_command(resolve, "daicho inbox");
	else
		add_command(resolve, "daicho inbox --as %s", to);
}

static void
describe_wait(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");
	bool orphan = strcmp(str(item, "kind", ""), "wait-needs-human") == 0;

	buf_addf(summary, "wait #%lld %s: %s has waited ", id,
	    orphan ? "has no live owner" : "overdue", str(item, "agent", "?"));
	clock_add_age(summary, now_ms - num(item, "started_ms"));
	buf_adds(summary, " for ");
	add_quote(summary, str(item, "for", ""));
	if (json_is_string(json_object_get(item, "owner")))
		buf_addf(summary, " (owner %s, %s)", str(item, "owner", ""),
		    str(item, "owner_state", "?"));
	else
		buf_adds(summary, " (owner none: the human)");
	add_command(resolve, "daicho resume %lld", id);
}

static void
describe_failed(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");
	int64_t all = num(item, "holds_back"),
		direct = num(item, "holds_back_directly");

	buf_addf(summary, "#%lld failed: ", id);
	add_quote(summary, str(item, "title", ""));
	buf_adds(summary, " (");
	add_quote(summary, str(item, "reason", "no reason recorded"));
	buf_addf(summary, ", %lld attempt%s); ", (long long)num(item, "attempts"),
	    num(item, "attempts") == 1 ? "" : "s");
	if (all == 0)
		buf_adds(summary, "holds nothing back");
	else if (all == direct)
		buf_addf(summary, "holds back %lld task%s directly",
		    (long long)all, all == 1 ? "" : "s");
	else
		buf_addf(summary, "holds back %lld tasks, %lld directly",
		    (long long)all, (long long)direct);
	add_command(resolve, "daicho reopen %lld", id);
	add_command(resolve, "daicho cancel %lld", id);
}

static void
describe_rejected(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");
	const char *state = str(item, "state", "?");

	buf_addf(summary, "#%lld rejected %lld times: ", id,
	    (long long)num(item, "rejections"));
	add_quote(summary, str(item, "title", ""));
	buf_addf(summary, " (%s", state);
	if (json_is_string(json_object_get(item, "owner")) &&
	    strcmp(state, "open") != 0)
		buf_addf(summary, " by %s", str(item, "owner", ""));
	buf_adds(summary, "; last: ");
	add_quote(summary, str(item, "last_summary", "?"));
	buf_adds(summary, ")");
	add_command(resolve, "daicho edit %lld --body-file FILE", id);
	if (strcmp(state, "open") == 0)
		add_command(resolve, "daicho cancel %lld", id);
	else
		add_command(resolve, "daicho release %lld --force", id);
}

static void
describe_verify_error(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");
	bool reported = strcmp(str(item, "state", ""), "reported") == 0;

	buf_addf(summary, "#%lld could not be verified (git failed at %s: ", id,
	    str(item, "check", "?"));
	add_quote(summary, str(item, "reason", ""));
	buf_adds(summary, "): ");
	add_quote(summary, str(item, "title", ""));
	if (reported)
		buf_adds(summary, "; fix git, then verify it again");
	else
		buf_addf(summary, "; it went back to %s: fix git before it is "
		    "reported again", str(item, "owner", "its holder"));
	add_command(resolve, reported ? "daicho verify %lld --apply"
				      : "daicho verify %lld", id);
}

static void
describe_max_hold(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id");

	buf_addf(summary, "#%lld taken back from %s, who held it for its max "
	    "hold (", id, str(item, "owner", "its holder"));
	clock_add_duration(summary, num(item, "max_hold_ms"));
	buf_adds(summary, ") without naming it; open again: ");
	add_quote(summary, str(item, "title", ""));
	add_command(resolve, "daicho edit %lld --body-file FILE", id);
	add_command(resolve, "daicho cancel %lld", id);
}

static void
describe_stale_agent(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	const json_t *claims = json_object_get(item, "claims"), *claim;
	size_t i;

	buf_addf(summary, "%s is %s, seen ", str(item, "agent", "?"),
	    str(item, "state", "stale"));
	clock_add_age(summary, now_ms - num(item, "last_seen_ms"));
	buf_adds(summary, " ago (");
	clock_add_timestamp(summary, num(item, "last_seen_ms"));
	buf_adds(summary, "), and holds ");
	json_array_foreach(claims, i, claim) {
		buf_addf(summary, "%s#%lld", i ? ", " : "",
		    (long long)json_integer_value(claim));
		add_command(resolve, "daicho release %lld --force",
		    (long long)json_integer_value(claim));
	}
}

static void
describe_budget(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	int64_t ready = num(item, "ready");

	buf_addf(summary, "a run by %s stopped at its budget (%lld tokens, "
	    "cost %.2f spent); %lld task%s ready", str(item, "by", "?"),
	    (long long)num(item, "tokens"),
	    json_number_value(json_object_get(item, "cost")), (long long)ready,
	    ready == 1 ? " is" : "s are");
	add_command(resolve, "daicho run --budget-tokens N -- CMD");
}

static void
describe_unswept(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	int64_t reports = num(item, "reports");

	(void)options;
	buf_addf(summary, "%lld report%s wait%s for a sweep, the oldest for ",
	    (long long)reports, reports == 1 ? "" : "s", reports == 1 ? "s" : "");
	clock_add_age(summary, now_ms - num(item, "since_ms"));
	buf_adds(summary, ": is one running? ('daicho sweep --every 30s' keeps "
	    "one going)");
	add_command(resolve, "daicho sweep");
}

static void
describe_unlanded(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	int64_t tasks = num(item, "tasks");

	(void)options;
	buf_addf(summary, "%lld verified task%s wait%s to land, the oldest "
	    "(#%lld) for ", (long long)tasks, tasks == 1 ? "" : "s",
	    tasks == 1 ? "s" : "", (long long)num(item, "oldest"));
	clock_add_age(summary, now_ms - num(item, "since_ms"));
	buf_adds(summary, ": is a sweep running? (each pass lands; "
	    "'daicho land' lands them now)");
	add_command(resolve, "daicho land");
}

static void
describe_stranded(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	long long id = (long long)num(item, "id"),
		  after = (long long)num(item, "after");

	(void)options;
	(void)now_ms;
	add_task_ref(summary, item);
	buf_addf(summary, " never becomes ready: it comes after #%lld, which is "
	    "cancelled", after);
	add_command(resolve, "daicho edit %lld --not-after %lld", id, after);
	add_command(resolve, "daicho reopen %lld", after);
}

static void
describe_ran_on_reopened(const json_t *item,
    const struct needs_options *options, int64_t now_ms, struct buf *summary,
    json_t *resolve)
{
	long long id = (long long)num(item, "id"),
		  reopened = (long long)num(item, "reopened");

	(void)options;
	(void)now_ms;
	add_task_ref(summary, item);
	buf_addf(summary, " (%s) ran on #%lld's work, which a person reopened",
	    str(item, "state", "?"), reopened);
	if (str(item, "reason", NULL) != NULL) {
		buf_adds(summary, ": '");
		add_quote(summary, str(item, "reason", ""));
		buf_adds(summary, "'");
	}
	buf_addf(summary, "; check it, or redo it once #%lld is done again",
	    reopened);
	add_command(resolve, "daicho reopen %lld --reason TEXT", id);
}

static void
describe_tampered(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	int64_t count = num(item, "findings");
	json_t *first = json_array_get(json_object_get(item, "found"), 0);

	(void)options;
	(void)now_ms;
	buf_addf(summary, "the ledger was written around daicho: %lld row%s no "
	    "event explains", (long long)count, count == 1 ? "" : "s");
	if (first != NULL) {
		buf_adds(summary, " (");
		buf_add_oneline(summary, str(first, "why", "?"));
		buf_adds(summary, count > 1 ? "; ...)" : ")");
	}
	add_command(resolve, "daicho doctor --audit");
}

static void
describe_land_waiting(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	buf_addf(summary, "#%lld waits to land: ", (long long)num(item, "id"));
	add_quote(summary, str(item, "title", ""));
	buf_adds(summary, " (");
	/* daicho's own words, with what to do last: never cut. */
	buf_add_oneline(summary, str(item, "reason", "?"));
	buf_adds(summary, ")");
	add_command(resolve, "daicho land");
}

static void
describe_land_paused(const json_t *item, const struct needs_options *options,
    int64_t now_ms, struct buf *summary, json_t *resolve)
{
	int64_t queued = num(item, "queued");

	buf_addf(summary, "landing is paused (by %s); %lld task%s wait%s to "
	    "land", str(item, "by", "?"), (long long)queued,
	    queued == 1 ? "" : "s", queued == 1 ? "s" : "");
	add_command(resolve, "daicho land --resume");
}

/*
 * The kinds, most urgent first. Every query reads through an index or a
 * small table (agents, waits, gates): status stays fast on a ledger of
 * many events and messages.
 */
static const struct need_kind kinds[] = {
	{ "approval",
	    "SELECT a.id, a.requested_ms AS since_ms, r.name AS requester,"
	    " a.command, a.cwd, g.pattern AS gate,"
	    " CASE WHEN d.id IS NOT NULL THEN 'true' ELSE 'false' END"
	    "  AS denied_before_json, d.id AS denied_id,"
	    " d.decided_by AS denied_by, d.decided_ms AS denied_ms,"
	    " d.reason AS denied_reason"
	    " FROM approvals a JOIN agents r ON r.id = a.requester"
	    " LEFT JOIN gates g ON g.id = a.gate"
	    " LEFT JOIN approvals d ON d.id = (SELECT max(x.id) FROM approvals x"
	    "  INDEXED BY approvals_denied WHERE x.command_key = a.command_key"
	    "  AND x.state = 'denied')"
	    " WHERE a.state = 'pending' AND ?1 IS NOT NULL"
	    " ORDER BY a.requested_ms, a.id",
	    describe_approval, "daicho approvals" },
	{ "blocked",
	    "SELECT t.id, coalesce((SELECT e.at_ms FROM events e"
	    "  WHERE e.task = t.id AND e.kind = 'block' ORDER BY e.id DESC"
	    "  LIMIT 1), t.updated_ms) AS since_ms,"
	    " t.title, t.block_reason AS reason, o.name AS owner"
	    " FROM tasks t LEFT JOIN agents o ON o.id = t.owner"
	    " WHERE t.state = 'blocked' AND ?1 IS NOT NULL"
	    " ORDER BY since_ms, t.id",
	    describe_blocked, "daicho show %lld" },
	/*
	 * A message reaches a human as one addressed to them by name, or to
	 * a role they hold (resolved to them when sent), or queued for their
	 * name.
	 */
	{ "message",
	    "SELECT m.id, m.sent_ms AS since_ms, s.name AS \"from\","
	    " h.name AS \"to\", m.addressed_to, m.kind AS message_kind,"
	    " m.body AS text"
	    " FROM messages m JOIN agents h ON h.id = m.recipient"
	    " LEFT JOIN agents s ON s.id = m.sender"
	    " WHERE m.read_ms IS NULL AND m.recipient IN (SELECT id FROM agents"
	    "  WHERE kind = 'human' AND state <> 'ended') AND ?1 IS NOT NULL"
	    " UNION ALL "
	    "SELECT m.id, m.sent_ms, s.name, m.recipient_name, m.addressed_to,"
	    " m.kind, m.body FROM messages m LEFT JOIN agents s ON s.id = m.sender"
	    " WHERE m.read_ms IS NULL AND m.queued = 1 AND m.recipient IS NULL"
	    " AND m.recipient_name IN (SELECT name FROM agents"
	    "  WHERE kind = 'human')"
	    " ORDER BY 2, 1",
	    describe_message, NULL },
	{ "overdue-wait",
	    "SELECT CASE WHEN w.needs_human <> 0 THEN 'wait-needs-human'"
	    " ELSE 'overdue-wait' END AS kind, w.id,"
	    " CASE WHEN w.needs_human <> 0 THEN w.started_ms"
	    " ELSE w.started_ms + w.remind_ms END AS since_ms,"
	    " a.name AS agent, o.name AS owner, o.state AS owner_state,"
	    " w.what AS \"for\", w.started_ms, w.remind_ms"
	    " FROM waits w JOIN agents a ON a.id = w.agent"
	    " LEFT JOIN agents o ON o.id = w.owner"
	    " WHERE w.ended_ms IS NULL AND (w.needs_human <> 0 OR"
	    "  w.started_ms + w.remind_ms <= ?1)"
	    " ORDER BY w.needs_human, since_ms, w.id",
	    describe_wait, NULL },
	/*
	 * What a failed task holds back: the tasks after it not yet done,
	 * directly or through others not done (a done task holds nothing).
	 */
	{ "failed",
	    "WITH c AS MATERIALIZED (SELECT t.id, t.title, t.attempts,"
	    "  t.updated_ms, (SELECT count(*) FROM deps d JOIN tasks x"
	    "   ON x.id = d.task WHERE d.after = t.id"
	    "   AND x.state NOT IN ('verified','landed','cancelled')) AS direct,"
	    "  (SELECT e.id FROM events e WHERE e.task = t.id AND e.kind = 'fail'"
	    "   ORDER BY e.id DESC LIMIT 1) AS fail_event"
	    "  FROM tasks t WHERE t.state = 'failed')"
	    "SELECT c.id, coalesce(f.at_ms, c.updated_ms) AS since_ms, c.title,"
	    " json_extract(f.detail, '$.reason') AS reason, c.attempts,"
	    " c.direct AS holds_back_directly,"
	    " CASE WHEN c.direct = 0 THEN 0 ELSE (WITH RECURSIVE below(id) AS ("
	    "   SELECT d.task FROM deps d JOIN tasks x ON x.id = d.task"
	    "   WHERE d.after = c.id AND x.state NOT IN ('verified','landed','cancelled')"
	    "   UNION SELECT d.task FROM below b JOIN deps d ON d.after = b.id"
	    "   JOIN tasks x ON x.id = d.task"
	    "   WHERE x.state NOT IN ('verified','landed','cancelled'))"
	    "  SELECT count(*) FROM below) END AS holds_back"
	    " FROM c LEFT JOIN events f ON f.id = c.fail_event"
	    " WHERE ?1 IS NOT NULL ORDER BY since_ms, c.id",
	    describe_failed, "daicho show %lld" },
	/* A landing waits for the person's work tree (core/land.h). */
	{ "land-waiting",
	    "SELECT t.id, t.land_queued_ms AS since_ms, t.title,"
	    " t.land_waiting AS reason"
	    " FROM tasks t INDEXED BY tasks_land_queue"
	    " WHERE t.state = 'verified' AND t.land_queued_ms IS NOT NULL"
	    " AND t.land_waiting IS NOT NULL AND ?1 IS NOT NULL"
	    " ORDER BY since_ms, t.id",
	    describe_land_waiting, "daicho show %lld" },
	{ "land-paused",
	    "SELECT 1 AS id, l.paused_ms AS since_ms, a.name AS \"by\","
	    " (SELECT count(*) FROM tasks INDEXED BY tasks_land_queue"
	    "  WHERE state = 'verified' AND land_queued_ms IS NOT NULL) AS queued"
	    " FROM land_lock l LEFT JOIN agents a ON a.id = l.paused_by"
	    " WHERE l.paused_ms IS NOT NULL AND ?1 IS NOT NULL",
	    describe_land_paused, NULL },
	/*
	 * Rejections count from the last change a person made to the task
	 * (edit, reopen, release --force); the verdicts are read first, so
	 * that only a task with two failed verdicts has its events read.
	 */
	{ "rejected",
	    "WITH c AS MATERIALIZED (SELECT t.id, t.title, t.state, t.owner,"
	    "  coalesce((SELECT max(r.id) FROM events r WHERE r.task = t.id AND"
	    "   (r.kind IN ('edit','reopen') OR (r.kind = 'release' AND"
	    "   CAST(json_extract(r.detail, '$.forced') AS TEXT) IN ('1', 'true')))),"
	    "  0) AS after_event"
	    "  FROM tasks t"
	    "  WHERE t.state IN ('open','claimed','reported','blocked')"
	    "  AND (SELECT count(*) FROM verdicts v"
	    "   WHERE v.task = t.id AND v.passed = 0) >= 2),"
	    " r AS (SELECT c.*, (SELECT count(*) FROM events e WHERE"
	    "  e.task = c.id AND e.kind = 'rejected' AND e.id > c.after_event)"
	    "  AS rejections, (SELECT e.at_ms FROM events e WHERE e.task = c.id"
	    "  AND e.kind = 'rejected' AND e.id > c.after_event ORDER BY e.id"
	    "  LIMIT 1 OFFSET 1) AS since_ms FROM c)"
	    "SELECT r.id, r.since_ms, r.title, r.state, o.name AS owner,"
	    " r.rejections, (SELECT v.summary FROM verdicts v WHERE v.task = r.id"
	    "  ORDER BY v.id DESC LIMIT 1) AS last_summary"
	    " FROM r LEFT JOIN agents o ON o.id = r.owner"
	    " WHERE r.rejections >= 2 AND ?1 IS NOT NULL"
	    " ORDER BY r.since_ms, r.id",
	    describe_rejected, "daicho show %lld" },
	/*
	 * The first failed run of the last verdict says why: a checkout that
	 * failed, or a question daicho asks git before any check (fetching
	 * the commit, which branch holds it, whether it is new, what it
	 * changes) that git could not answer ("cannot ..."). A report made
	 * since the verdict is the sweep's to verify.
	 */
	{ "verify-error",
	    "WITH c AS MATERIALIZED (SELECT t.id, t.title, t.state, t.owner,"
	    "  v.id AS verdict, v.at_ms, r.spec, printf('%s', r.output) AS reason"
	    "  FROM tasks t JOIN verdicts v ON v.id = (SELECT max(x.id)"
	    "   FROM verdicts x WHERE x.task = t.id)"
	    "  JOIN check_runs r ON r.verdict = v.id AND r.seq = (SELECT"
	    "   min(y.seq) FROM check_runs y WHERE y.verdict = v.id"
	    "   AND y.passed = 0)"
	    "  WHERE t.state IN ('reported','claimed') AND v.passed = 0"
	    "  AND (r.spec = 'checkout' OR (r.spec IN"
	    "   ('on-branch','new-work','protected','fetch') AND"
	    "   printf('%s', r.output) LIKE 'cannot %')))"
	    "SELECT c.id, c.at_ms AS since_ms, c.title, c.state, o.name AS owner,"
	    " c.verdict, c.spec AS \"check\", c.reason"
	    " FROM c LEFT JOIN agents o ON o.id = c.owner"
	    " WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.task = c.id"
	    "  AND e.kind = 'report' AND e.at_ms >= c.at_ms"
	    "  AND e.id > coalesce((SELECT max(f.id) FROM events f"
	    "   WHERE f.task = c.id"
	    "   AND CAST(json_extract(f.detail, '$.verdict') AS BIGINT)"
	    "   = c.verdict), 0))"
	    " AND ?1 IS NOT NULL ORDER BY since_ms, c.id",
	    describe_verify_error, "daicho show %lld" },
	/*
	 * The last event of an open task says how its last claim ended:
	 * the sweep's lease-expired for the maximum hold, and nothing since.
	 */
	{ "max-hold",
	    "SELECT t.id, e.at_ms AS since_ms, t.title,"
	    " json_extract(e.detail, '$.owner') AS owner,"
	    " CAST(json_extract(e.detail, '$.max_hold_ms') AS BIGINT)"
	    "  AS max_hold_ms"
	    " FROM tasks t JOIN events e ON e.id = (SELECT max(x.id) FROM events x"
	    "  WHERE x.task = t.id)"
	    " WHERE t.state = 'open' AND t.claim_named_ms IS NOT NULL"
	    " AND e.kind = 'lease-expired'"
	    " AND json_extract(e.detail, '$.reason') LIKE 'max hold%'"
	    " AND ?1 IS NOT NULL ORDER BY since_ms, t.id",
	    describe_max_hold, "daicho log %lld" },
	/* A person is never stale: they are seen when they act. */
	{ "stale-agent-holding",
	    "SELECT a.id, a.last_seen_ms AS since_ms, a.name AS agent,"
	    " CASE a.state WHEN 'active' THEN 'stale' ELSE a.state END AS state,"
	    " a.last_seen_ms, (SELECT json_group_array(id) FROM (SELECT t.id"
	    "  FROM tasks t INDEXED BY tasks_owner_claimed"
	    "  WHERE t.owner = a.id AND t.state = 'claimed' ORDER BY t.id) AS held)"
	    "  AS claims_json"
	    " FROM agents a"
	    " WHERE (a.state IN ('stale','ended') OR (a.state = 'active' AND"
	    "  a.kind <> 'human' AND a.last_seen_ms <= ?1 - ?2))"
	    " AND EXISTS (SELECT 1 FROM tasks t INDEXED BY tasks_owner_claimed"
	    "  WHERE t.owner = a.id AND t.state = 'claimed')"
	    " ORDER BY a.last_seen_ms, a.name",
	    describe_stale_agent, NULL },
	/*
	 * Reports no sweep has taken for the stale window: none is running
	 * (a running one takes them within its interval).
	 */
	{ "unswept",
	    "SELECT 1 AS id, s.since_ms, s.reports FROM (SELECT"
	    " min(updated_ms) AS since_ms, count(*) AS reports FROM tasks"
	    " WHERE state = 'reported' AND verify_token IS NULL) AS s"
	    " WHERE s.reports > 0 AND s.since_ms <= ?1 - ?2",
	    describe_unswept, NULL },
	/*
	 * Verified work no lander has taken for the stale window: none is
	 * running (every sweep pass ends with a landing pass). A paused queue
	 * and a landing that waits for the person are items of their own.
	 */
	{ "unlanded",
	    "SELECT 1 AS id, s.since_ms, s.tasks, (SELECT q.id FROM tasks q"
	    "  INDEXED BY tasks_land_queue WHERE q.land_queued_ms = s.since_ms"
	    "  AND q.state = 'verified' ORDER BY q.id LIMIT 1) AS oldest"
	    " FROM (SELECT min(land_queued_ms) AS since_ms, count(*) AS tasks"
	    "  FROM tasks INDEXED BY tasks_land_queue"
	    "  WHERE land_queued_ms IS NOT NULL AND state = 'verified'"
	    "  AND land_waiting IS NULL) AS s"
	    " WHERE s.tasks > 0 AND s.since_ms <= ?1 - ?2 AND NOT EXISTS"
	    "  (SELECT 1 FROM land_lock WHERE paused_ms IS NOT NULL)",
	    describe_unlanded, NULL },
	/* An open task after a cancelled one: it never becomes ready. */
	{ "stranded",
	    "SELECT t.id, b.updated_ms AS since_ms, t.title, b.id AS after"
	    " FROM tasks t JOIN tasks b ON b.id = (SELECT min(d.after)"
	    "  FROM deps d JOIN tasks x ON x.id = d.after"
	    "  WHERE d.task = t.id AND x.state = 'cancelled')"
	    " WHERE t.state = 'open' AND ?1 IS NOT NULL"
	    " ORDER BY since_ms, t.id",
	    describe_stranded, "daicho show %lld" },
	/*
	 * Tasks that ran on work a person has since reopened (a verified or
	 * landed task whose work turned out wrong): they rest on it until it
	 * is done again.
	 */
	{ "ran-on-reopened",
	    "SELECT x.id, e.at_ms AS since_ms, x.title, x.state,"
	    " t.id AS reopened, t.title AS reopened_title,"
	    " json_extract(e.detail, '$.reason') AS reason"
	    " FROM events e JOIN tasks t ON t.id = e.task"
	    " JOIN deps d ON d.after = t.id JOIN tasks x ON x.id = d.task"
	    " WHERE e.kind = 'reopen' AND e.task IS NOT NULL"
	    " AND json_extract(e.detail, '$.from') IN ('verified', 'landed')"
	    " AND e.id = (SELECT max(r.id) FROM events r WHERE r.task = e.task"
	    "  AND r.kind = 'reopen')"
	    " AND t.state NOT IN ('verified', 'landed')"
	    " AND x.state IN ('claimed', 'reported', 'blocked', 'verified',"
	    "  'landed') AND ?1 IS NOT NULL"
	    " ORDER BY since_ms, x.id",
	    describe_ran_on_reopened, "daicho show %lld" },
	/* The last audit (core/audit.h) found rows no event explains. */
	{ "tampered",
	    "SELECT 1 AS id, at_ms AS since_ms, findings, detail AS found_json"
	    " FROM audits WHERE findings > 0 AND ?1 IS NOT NULL",
	    describe_tampered, NULL },
	/*
	 * A run's agents have the role "run" (run/runner.c): a stop needs a
	 * person until a run starts after it, or nothing is ready any more.
	 */
	{ "budget-stop",
	    "SELECT e.id, e.at_ms AS since_ms, a.name AS \"by\","
	    " CAST(json_extract(e.detail, '$.tokens') AS BIGINT) AS tokens,"
	    " CAST(json_extract(e.detail, '$.cost') AS DOUBLE PRECISION) AS cost,"
	    " (SELECT count(*)"
	    "  FROM tasks INDEXED BY tasks_ready"
	    "  WHERE state = 'open' AND unmet_deps = 0) AS ready"
	    " FROM events e INDEXED BY events_budget_spent"
	    " LEFT JOIN agents a ON a.id = e.actor"
	    " WHERE e.kind = 'budget-spent' AND ?1 IS NOT NULL"
	    " AND e.at_ms >= (SELECT coalesce(max(r.started_ms), 0)"
	    "  FROM agents r WHERE r.role = 'run')"
	    " AND EXISTS (SELECT 1 FROM tasks INDEXED BY tasks_ready"
	    "  WHERE state = 'open' AND unmet_deps = 0)"
	    " ORDER BY e.at_ms, e.id",
	    describe_budget, NULL },
};

/* Turn the rows of one kind into items appended to array. */
static void
add_items(const struct need_kind *kind, json_t *rows,
    const struct needs_options *options, int64_t now_ms, json_t *array)
{
	json_t *row, *value;
	const char *key;
	size_t i;

	json_array_foreach(rows, i, row) {
		json_t *item = json_object(), *resolve = json_array();
		struct buf summary = BUF_INIT;

		json_object_set_new(item, "kind", json_string(str(row, "kind",
		    kind->name)));
		json_object_set(item, "id", json_object_get(row, "id"));
		kind->describe(row, options, now_ms, &summary, resolve);
		json_object_set_new(item, "summary", json_string(summary.buf));
		json_object_set(item, "since_ms", json_object_get(row, "since_ms"));
		json_object_set_new(item, "resolve", resolve);
		if (kind->inspect) {
			struct buf inspect = BUF_INIT;

			/* A fixed table's format: the id is its one argument. */
			buf_addf(&inspect, kind->inspect, (long long)num(row, "id"));
			json_object_set_new(item, "inspect", json_string(inspect.buf));
			buf_release(&inspect);
		}
		json_object_foreach(row, key, value)
			if (json_object_get(item, key) == NULL)
				json_object_set(item, key, value);
		json_array_append_new(array, item);
		buf_release(&summary);
	}
}

int
needs_collect(struct ledger *ledger, const struct needs_options *options,
    int64_t now_ms, json_t *array, struct err *err)
{
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct db_stmt *st = NULL;
		json_t *rows = json_array();
		int rc;

		if ((rc = db_prepare(ledger, kinds[k].sql, &st, err)) < 0) {
			json_decref(rows);
			return rc;
		}
		db_bind_int(st, 1, now_ms);
		if (db_bind_count(st) >= 2)
			db_bind_int(st, 2, options->stale_after_ms);
		if ((rc = db_rows_json(ledger, st, rows, "finding what needs "
			 "a person", err)) < 0) {
			json_decref(rows);
			return rc;
		}
		add_items(&kinds[k], rows, options, now_ms, array);
		json_decref(rows);
	}
	return 0;
}

int
needs_list(struct ledger *ledger, const struct needs_options *options,
    json_t **out, struct err *err)
{
	int rc;

	*out = json_array();
	if ((rc = ledger_begin_read(ledger, err)) == 0) {
		rc = needs_collect(ledger, options, clock_now_ms(), *out, err);
		ledger_rollback(ledger);
	}
	if (rc < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}
