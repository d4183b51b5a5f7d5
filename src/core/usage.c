/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/usage.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "core/db.h"

int
usage_each(struct ledger *ledger, const char *by,
    int (*fn)(const struct usage_row *row, void *arg), void *arg,
    struct err *err)
{
	static const char by_task[] =
	    "SELECT * FROM ("
	    "SELECT '#' || s.task AS k, 1, count(*), sum(coalesce(s.tokens_in, 0)),"
	    " sum(coalesce(s.tokens_out, 0)), sum(coalesce(s.cost, 0)) AS c"
	    " FROM saves s GROUP BY s.task"
	    " UNION ALL SELECT NULL, count(DISTINCT task), count(*),"
	    " coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),"
	    " coalesce(sum(cost), 0) FROM saves) AS u ORDER BY k IS NULL, c DESC, k";
	static const char by_agent[] =
	    "SELECT * FROM ("
	    "SELECT coalesce(a.name, '-') AS k, count(DISTINCT s.task), count(*),"
	    " sum(coalesce(s.tokens_in, 0)), sum(coalesce(s.tokens_out, 0)),"
	    " sum(coalesce(s.cost, 0)) AS c"
	    " FROM saves s LEFT JOIN agents a ON a.id = s.agent"
	    " GROUP BY s.agent, a.name"
	    " UNION ALL SELECT NULL, count(DISTINCT task), count(*),"
	    " coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),"
	    " coalesce(sum(cost), 0) FROM saves) AS u ORDER BY k IS NULL, c DESC, k";
	static const char by_model[] =
	    "SELECT * FROM ("
	    "SELECT coalesce(s.model, '-') AS k, count(DISTINCT s.task), count(*),"
	    " sum(coalesce(s.tokens_in, 0)), sum(coalesce(s.tokens_out, 0)),"
	    " sum(coalesce(s.cost, 0)) AS c"
	    " FROM saves s GROUP BY s.model"
	    " UNION ALL SELECT NULL, count(DISTINCT task), count(*),"
	    " coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),"
	    " coalesce(sum(cost), 0) FROM saves) AS u ORDER BY k IS NULL, c DESC, k";
	/* A task with several labels counts under each of them. */
	static const char by_label[] =
	    "SELECT * FROM ("
	    "SELECT coalesce(l.label, '-') AS k, count(DISTINCT s.task), count(*),"
	    " sum(coalesce(s.tokens_in, 0)), sum(coalesce(s.tokens_out, 0)),"
	    " sum(coalesce(s.cost, 0)) AS c"
	    " FROM saves s LEFT JOIN labels l ON l.task = s.task GROUP BY l.label"
	    " UNION ALL SELECT NULL, count(DISTINCT task), count(*),"
	    " coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),"
	    " coalesce(sum(cost), 0) FROM saves) AS u ORDER BY k IS NULL, c DESC, k";
	/* Days since the epoch (UTC), oldest first; named below. */
	static const char by_day[] =
	    "SELECT * FROM ("
	    "SELECT s.at_ms / 86400000 AS k, count(DISTINCT s.task), count(*),"
	    " sum(coalesce(s.tokens_in, 0)), sum(coalesce(s.tokens_out, 0)),"
	    " sum(coalesce(s.cost, 0)) AS c"
	    " FROM saves s GROUP BY s.at_ms / 86400000"
	    " UNION ALL SELECT NULL, count(DISTINCT task), count(*),"
	    " coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),"
	    " coalesce(sum(cost), 0) FROM saves) AS u ORDER BY k IS NULL, k";
	bool day = strcmp(by, "day") == 0;
	const char *sql = strcmp(by, "agent") == 0 ? by_agent
			  : strcmp(by, "model") == 0 ? by_model
			  : strcmp(by, "label") == 0 ? by_label
			  : day ? by_day : by_task;
	struct db_stmt *st = NULL;
	int rc, stop = 0;
	char date[16];

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	while ((rc = db_step(st)) == DB_ROW) {
		struct usage_row row = {
			.key = db_column_text(st, 0),
			.tasks = db_column_int(st, 1),
			.saves = db_column_int(st, 2),
			.tokens_in = db_column_int(st, 3),
			.tokens_out = db_column_int(st, 4),
			.cost = db_column_double(st, 5),
		};

		if (day && row.key != NULL) {
			time_t t = (time_t)db_column_int(st, 0) * 86400;
			struct tm tm;

			strftime(date, sizeof(date), "%Y-%m-%d", gmtime_r(&t, &tm));
			row.key = date;
		}
		if ((stop = fn(&row, arg)) != 0)
			break;
	}
	db_reset(st);
	if (stop)
		return stop;
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "summing usage");
	return 0;
}

int
usage_since(struct ledger *ledger, int64_t after_save, const char *tasks_json,
    int64_t *tokens, double *cost, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger,
	    "SELECT coalesce(sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)),"
	    " 0), coalesce(sum(cost), 0) FROM saves WHERE id > ?1"
	    " AND task IN (SELECT CAST(value AS BIGINT) FROM json_each(?2))",
	    &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, after_save);
	db_bind_text(st, 2, tasks_json);
	rc = db_step(st);
	if (rc == DB_ROW) {
		*tokens = db_column_int(st, 0);
		*cost = db_column_double(st, 1);
	}
	db_reset(st);
	if (rc != DB_ROW)
		return db_error(ledger, rc, err, "summing usage");
	return 0;
}

int
usage_mark(struct ledger *ledger, int64_t *save_id, struct err *err)
{
	return ledger_query_int(ledger, "SELECT coalesce(max(id), 0) FROM saves",
	    save_id, err);
}

int
usage_saves(struct ledger *ledger, int64_t task, json_t **out, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*out = NULL;
	if ((rc = db_prepare(ledger,
	    "SELECT s.id AS id, s.at_ms AS at_ms, a.name AS agent,"
	    " length(s.result) AS bytes, s.tokens_in AS tokens_in,"
	    " s.tokens_out AS tokens_out, s.cost AS cost, s.model AS model"
	    " FROM saves s LEFT JOIN agents a ON a.id = s.agent"
	    " WHERE s.task = ? ORDER BY s.id", &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, task);
	*out = json_array();
	return db_rows_json(ledger, st, *out, "reading saves", err);
}
