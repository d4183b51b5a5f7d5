/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * What every back end shares of the statement interface (core/db.h): the
 * helpers built on its calls alone (core/stmt.c makes those calls).
 */
#include "core/db.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

int
db_step_done(struct ledger *ledger, struct db_stmt *st, const char *what,
    struct err *err)
{
	int rc;

	while ((rc = db_step(st)) == DB_ROW)
		;
	db_reset(st);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}

/* db_write() and db_write_later(): the statement sent now or later. */
static int
write_one(struct ledger *ledger, const char *sql, int64_t a, int64_t b,
    bool later, int64_t *changes, const char *what, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	db_bind_int(st, 1, a);
	if (db_bind_count(st) >= 2)
		db_bind_int(st, 2, b);
	rc = later ? db_step_later(ledger, st, what, err)
		   : db_step_done(ledger, st, what, err);
	if (rc < 0)
		return rc;
	if (changes)
		*changes = db_changes(ledger);
	return 0;
}

int
db_write(struct ledger *ledger, const char *sql, int64_t a, int64_t b,
    int64_t *changes, const char *what, struct err *err)
{
	return write_one(ledger, sql, a, b, false, changes, what, err);
}

int
db_write_later(struct ledger *ledger, const char *sql, int64_t a, int64_t b,
    const char *what, struct err *err)
{
	return write_one(ledger, sql, a, b, true, NULL, what, err);
}

int
db_step_int(struct ledger *ledger, struct db_stmt *st, int64_t *value,
    bool *found, const char *what, struct err *err)
{
	int rc = db_step(st);

	*value = rc == DB_ROW ? db_column_int(st, 0) : 0;
	if (found)
		*found = rc == DB_ROW;
	db_reset(st);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}

int
db_count(struct ledger *ledger, const char *sql, int64_t a, int64_t *count,
    const char *what, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc;

	*count = 0;
	if ((rc = db_prepare(ledger, sql, &st, err)) < 0)
		return rc;
	if (db_bind_count(st) >= 1)
		db_bind_int(st, 1, a);
	return db_step_int(ledger, st, count, NULL, what, err);
}

/* Whether a column called name holds JSON text ("..._json"). */
static bool
is_json_column(const char *name, size_t len)
{
	return len > 5 && strcmp(name + len - 5, "_json") == 0;
}

/* The JSON value of column i of st's current row. */
static json_t *
column_json(struct db_stmt *st, int i)
{
	const char *name = db_column_name(st, i);
	const char *text;
	json_t *value = NULL;
	size_t len;

	switch (db_column_type(st, i)) {
	case DB_INTEGER:
		return json_integer(db_column_int(st, i));
	case DB_REAL:
		return json_real(db_column_double(st, i));
	case DB_NULL:
		return json_null();
	default:
		break;
	}
	text = db_column_text(st, i);
	len = db_column_bytes(st, i);
	if (is_json_column(name, strlen(name)))
		value = json_loadb(text, len, JSON_DECODE_ANY, NULL);
	if (value == NULL)
		value = json_stringn(text, len);
	if (value == NULL) {
		/* Not UTF-8: keep the ASCII, mark the rest. */
		char *ascii = xstrndup(text, len);

		for (size_t k = 0; k < len; k++)
			if ((unsigned char)ascii[k] >= 0x80 || ascii[k] == 0)
				ascii[k] = '?';
		value = json_stringn(ascii, len);
		free(ascii);
	}
	return value;
}

int
db_rows_json(struct ledger *ledger, struct db_stmt *st, json_t *array,
    const char *what, struct err *err)
{
	int rc, columns = db_column_count(st);

	while ((rc = db_step(st)) == DB_ROW) {
		json_t *row = json_object();

		for (int i = 0; i < columns; i++) {
			const char *name = db_column_name(st, i);
			size_t len = strlen(name);

			if (is_json_column(name, len)) {
				char *key = xstrndup(name, len - 5);

				json_object_set_new(row, key, column_json(st, i));
				free(key);
			} else {
				json_object_set_new(row, name, column_json(st, i));
			}
		}
		json_array_append_new(array, row);
	}
	db_reset(st);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, what);
	return 0;
}
