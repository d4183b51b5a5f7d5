/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/transfer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/db.h"
#include "core/task.h"
#include "util/alloc.h"
#include "util/base64.h"

/*
 * Every table of the schema, in an order that imports: a row comes after
 * the rows it refers to (agents, then tasks by id: a parent is always
 * added before its children; verdicts before their check runs, gates
 * before approvals, waits before their items). Each query reads the whole
 * table in key order, so that two exports of one ledger are the same. A
 * table added by a migration must be added here (the round-trip test in
 * tests/cli/export.bats compares this list with the schema).
 */
static const struct transfer_table {
	const char *name;
	const char *select; /* a literal: a cached statement */
} tables[] = {
	{ "agents", "SELECT * FROM agents ORDER BY id" },
	{ "tasks", "SELECT * FROM tasks ORDER BY id" },
	{ "deps", "SELECT * FROM deps ORDER BY task, after" },
	{ "labels", "SELECT * FROM labels ORDER BY task, label" },
	{ "touches", "SELECT * FROM touches ORDER BY task, glob" },
	{ "protects", "SELECT * FROM protects ORDER BY task, glob" },
	{ "checks", "SELECT * FROM checks ORDER BY task, seq" },
	{ "saves", "SELECT * FROM saves ORDER BY id" },
	{ "verdicts", "SELECT * FROM verdicts ORDER BY id" },
	{ "check_runs", "SELECT * FROM check_runs ORDER BY verdict, seq" },
	{ "gates", "SELECT * FROM gates ORDER BY id" },
	{ "approvals", "SELECT * FROM approvals ORDER BY id" },
	{ "waits", "SELECT * FROM waits ORDER BY id" },
	{ "wait_items", "SELECT * FROM wait_items ORDER BY wait, seq" },
	{ "messages", "SELECT * FROM messages ORDER BY id" },
	{ "reservations", "SELECT * FROM reservations ORDER BY id" },
	/* Not the running dashboard's record and links (core/weblogin.h). */
	{ "settings", "SELECT * FROM settings WHERE key NOT LIKE 'web-%'"
	  " ORDER BY key" },
	{ "land_lock", "SELECT * FROM land_lock ORDER BY id" },
	{ "baselines", "SELECT * FROM baselines ORDER BY tree, key" },
	{ "audits", "SELECT * FROM audits ORDER BY id" },
	{ "events", "SELECT * FROM events ORDER BY id" },
};

#define TABLE_COUNT (sizeof(tables) / sizeof(tables[0]))

/*
 * A string, or {"base64": ...} for len bytes at data that are not UTF-8.
 * Returns a new reference.
 */
static json_t *
bytes_json(const void *data, size_t len)
{
	json_t *value = json_stringn(data ? data : "", len);
	struct buf encoded = BUF_INIT;

	if (value != NULL)
		return value;
	base64_encode(&encoded, data, len);
	value = json_pack("{s:s#}", "base64", encoded.buf, encoded.len);
	buf_release(&encoded);
	return value;
}

/* The JSON value of column i of st's current row, a new reference. */
static json_t *
column_value(struct db_stmt *st, int i)
{
	switch (db_column_type(st, i)) {
	case DB_INTEGER:
		return json_integer(db_column_int(st, i));
	case DB_REAL:
		return json_real(db_column_double(st, i));
	case DB_NULL:
		return json_null();
	case DB_BLOB:
		return bytes_json(db_column_blob(st, i),
		    (size_t)db_column_bytes(st, i));
	default:
		return bytes_json(db_column_text(st, i),
		    (size_t)db_column_bytes(st, i));
	}
}

/* Hand every row of table t to emit. */
static int
export_table(struct ledger *ledger, const struct transfer_table *t,
    transfer_emit_fn emit, void *arg, struct err *err)
{
	struct db_stmt *st = NULL;
	int rc, columns;

	if ((rc = db_prepare(ledger, t->select, &st, err)) < 0)
		return rc;
	columns = db_column_count(st);
	while ((rc = db_step(st)) == DB_ROW) {
		json_t *row = json_object();
		json_t *record = json_pack("{s:s,s:o}", "table", t->name, "row", row);
		int stop;

		for (int i = 0; i < columns; i++)
			json_object_set_new(row, db_column_name(st, i),
			    column_value(st, i));
		stop = emit(arg, record, err);
		json_decref(record);
		if (stop < 0) {
			db_reset(st);
			return stop;
		}
	}
	db_reset(st);
	if (rc != DB_DONE)
		return db_error(ledger, rc, err, "exporting the ledger");
	return 0;
}

int
transfer_export(struct ledger *ledger, transfer_emit_fn emit, void *arg,
    struct err *err)
{
	json_t *header;
	int rc;

	if ((rc = ledger_begin_read(ledger, err)) < 0)
		return rc;
	header = json_pack("{s:s,s:i,s:i}", "daicho", "export", "format",
	    TRANSFER_FORMAT, "schema", LEDGER_SCHEMA_VERSION);
	rc = emit(arg, header, err);
	json_decref(header);
	for (size_t i = 0; rc == 0 && i < TABLE_COUNT; i++)
		rc = export_table(ledger, &tables[i], emit, arg, err);
	ledger_rollback(ledger); /* a read: nothing to commit */
	return rc;
}

/*
 * What an import knows of one table: its columns and their declared
 * types (from the ledger itself, so a migration's new column needs no
 * change here), and the INSERT for the last set of columns a row named.
 */
struct import_table {
	int columns;
	char **names;            /* copied from the export statement's */
	const char **types;      /* INTEGER, REAL, TEXT, BLOB */
	struct buf insert_keys;  /* the row keys the insert was made for */
	struct db_stmt *insert;    /* owned; NULL until the first row */
	int64_t rows;            /* imported so far */
};

struct import {
	struct ledger *ledger;
	struct import_table tables[TABLE_COUNT];
	struct buf decoded;      /* scratch for base64 values */
	size_t line;             /* the line being imported, from 1 */
	struct err *err;
};

/* The error about the line being imported; returns -ERR_USAGE. */
static int line_error(struct import *im, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
line_error(struct import *im, const char *fmt, ...)
{
	struct buf what = BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vaddf(&what, fmt, ap);
	va_end(ap);
	rc = err_set(im->err, ERR_USAGE, "line %zu of the import: %s (nothing "
	    "was imported; fix the line, or import an unchanged 'daicho export')",
	    im->line, what.buf);
	buf_release(&what);
	return rc;
}

/* Learn table i's columns from its export statement (cached). */
static int
learn_table(struct import *im, size_t i)
{
	struct import_table *t = &im->tables[i];
	struct db_stmt *st;
	int rc;

	if (t->names != NULL)
		return 0;
	if ((rc = db_prepare(im->ledger, tables[i].select, &st, im->err)) < 0)
		return rc;
	t->columns = db_column_count(st);
	t->names = xcalloc((size_t)t->columns, sizeof(*t->names));
	t->types = xcalloc((size_t)t->columns, sizeof(*t->types));
	for (int c = 0; c < t->columns; c++) {
		const char *type = db_column_decltype(st, c);

		/* A copy: SQLite may prepare the cached statement again. */
		t->names[c] = xstrdup(db_column_name(st, c));
		t->types[c] = type ? type : "ANY";
	}
	return 0;
}

/* The index of column name in t, or -1. */
static int
column_index(const struct import_table *t, const char *name)
{
	for (int c = 0; c < t->columns; c++)
		if (strcmp(t->names[c], name) == 0)
			return c;
	return -1;
}

/*
 * The bytes of a string value, or of a {"base64": ...} one (decoded into
 * im->decoded). Returns 0, or -1 when value is neither.
 */
static int
value_bytes(struct import *im, json_t *value, const char **data, size_t *len)
{
	json_t *encoded = json_object_get(value, "base64");

	if (json_is_string(value)) {
		*data = json_string_value(value);
		*len = json_string_length(value);
		return 0;
	}
	if (!json_is_object(value) || json_object_size(value) != 1 ||
	    !json_is_string(encoded))
		return -1;
	buf_reset(&im->decoded);
	if (base64_decode(&im->decoded, json_string_value(encoded),
	    json_string_length(encoded)) < 0)
		return -1;
	*data = im->decoded.buf;
	*len = im->decoded.len;
	return 0;
}

/* Bind value, of a column declared type, as parameter n of st. */
static int
bind_value(struct import *im, struct db_stmt *st, int n, const char *type,
    json_t *value, const char *table, const char *column)
{
	const char *data;
	size_t len;

	if (json_is_null(value)) {
		db_bind_null(st, n);
		return 0;
	}
	if (strcmp(type, "INTEGER") == 0) {
		if (!json_is_integer(value))
			goto wrong;
		db_bind_int(st, n, json_integer_value(value));
		return 0;
	}
	if (strcmp(type, "REAL") == 0) {
		if (!json_is_number(value))
			goto wrong;
		db_bind_double(st, n, json_number_value(value));
		return 0;
	}
	if (value_bytes(im, value, &data, &len) < 0)
		goto wrong;
	if (strcmp(type, "BLOB") == 0) {
		db_bind_blob_copy(st, n, data, len);
		return 0;
	}
	/*
	 * Text as the commands take it: no NUL (C strings would cut it); a
	 * title, one line of at most TASK_TITLE_MAX_BYTES. (Bytes that are
	 * not UTF-8 stay importable: a ledger an older daicho wrote has them.)
	 */
	if (memchr(data, '\0', len) != NULL)
		return line_error(im, "%s.%s holds a NUL byte (text holds none)",
		    table, column);
	if (strcmp(table, "tasks") == 0 && strcmp(column, "title") == 0 &&
	    (len == 0 || len > TASK_TITLE_MAX_BYTES ||
	     memchr(data, '\n', len) != NULL))
		return line_error(im, "tasks.title must be one line of 1 to %d "
		    "bytes (this one: %zu)", TASK_TITLE_MAX_BYTES, len);
	db_bind_textn_copy(st, n, data, len);
	return 0;
wrong:
	{
		struct buf what = BUF_INIT;
		int rc;

		buf_addf(&what, "%s.%s", table, column);
		rc = line_error(im, "%s must be %s", what.buf,
		    strcmp(type, "INTEGER") == 0 ? "an integer or null" :
		    strcmp(type, "REAL") == 0 ? "a number or null" :
		    "a string, {\"base64\": ...} or null");
		buf_release(&what);
		return rc;
	}
}

/*
 * Make t's insert fit row's keys (in their order), preparing a new one
 * when they differ from the last row's. The SQL is built from the
 * ledger's own column names only: every key was matched to one.
 */
static int
prepare_insert(struct import *im, size_t i, json_t *row)
{
	struct import_table *t = &im->tables[i];
	struct buf keys = BUF_INIT, sql = BUF_INIT;
	const char *key;
	json_t *value;
	int n = 0, rc = 0;

	json_object_foreach(row, key, value) {
		int c = column_index(t, key);

		if (c < 0) {
			rc = line_error(im, "table %s has no column '%s'",
			    tables[i].name, key);
			goto done;
		}
		buf_addf(&keys, "%s%s", n++ ? "," : "", t->names[c]);
	}
	if (n == 0) {
		rc = line_error(im, "the %s row has no columns", tables[i].name);
		goto done;
	}
	if (t->insert != NULL && strcmp(keys.buf, t->insert_keys.buf) == 0)
		goto done;
	db_finalize(t->insert);
	t->insert = NULL;
	buf_addf(&sql, "INSERT INTO %s (%s) VALUES (", tables[i].name, keys.buf);
	for (int k = 1; k <= n; k++)
		buf_addf(&sql, "%s?%d", k > 1 ? "," : "", k);
	buf_addch(&sql, ')');
	if ((rc = db_prepare_once(im->ledger, sql.buf, &t->insert, im->err)) < 0)
		goto done;
	buf_reset(&t->insert_keys);
	buf_add(&t->insert_keys, keys.buf, keys.len);
done:
	buf_release(&keys);
	buf_release(&sql);
	return rc;
}

/* Insert one row of table i. */
static int
import_row(struct import *im, size_t i, json_t *row)
{
	struct import_table *t;
	const char *key;
	json_t *value;
	int n = 0, rc;

	/*
	 * The dashboard's own rows (core/weblogin.h) belong to a running
	 * server, never to an export: one in a file is refused, so that an
	 * edited export cannot plant a login link.
	 */
	if (strcmp(tables[i].name, "settings") == 0 &&
	    strncmp(json_string_value(json_object_get(row, "key")) ?
	    json_string_value(json_object_get(row, "key")) : "", "web-",
	    4) == 0)
		return line_error(im, "setting '%.40s' is the running "
		    "dashboard's, never part of an export",
		    json_string_value(json_object_get(row, "key")));
	if ((rc = learn_table(im, i)) < 0 || (rc = prepare_insert(im, i, row)) < 0)
		return rc;
	t = &im->tables[i];
	json_object_foreach(row, key, value) {
		int c = column_index(t, key);

		if ((rc = bind_value(im, t->insert, ++n, t->types[c], value,
			 tables[i].name, key)) < 0) {
			db_reset(t->insert);
			return rc;
		}
	}
	rc = db_step(t->insert);
	db_reset(t->insert);
	if (rc == DB_DONE) {
		t->rows++;
		return 0;
	}
	/* In the same words on both back ends where the kind is known. */
	if (db_is_constraint(rc)) {
		switch (db_constraint_kind(im->ledger, rc)) {
		case DB_CONSTRAINT_UNIQUE:
			return line_error(im, "the ledger refuses this %s row: its "
			    "id (or another value that must be unique) is taken",
			    tables[i].name);
		case DB_CONSTRAINT_FOREIGN_KEY:
			return line_error(im, "the ledger refuses this %s row: it "
			    "refers to a row that is not there (yet)",
			    tables[i].name);
		default:
			return line_error(im, "the ledger refuses this %s row (%s)",
			    tables[i].name, db_errmsg(im->ledger));
		}
	}
	return db_error(im->ledger, rc, im->err, "importing");
}

/* Import one line: the header when it is the first record, else a row. */
static int
import_line(struct import *im, const char *line, size_t len, bool first)
{
	json_error_t jerr;
	json_t *record = json_loadb(line, len, JSON_REJECT_DUPLICATES |
	    JSON_ALLOW_NUL, &jerr);
	json_t *row = json_object_get(record, "row");
	const char *name = json_string_value(json_object_get(record, "table"));
	int rc = -1;

	if (record == NULL) {
		rc = line_error(im, "not JSON (%s)", jerr.text);
		goto done;
	}
	if (first) {
		json_t *format = json_object_get(record, "format");
		json_t *schema = json_object_get(record, "schema");

		if (!json_is_string(json_object_get(record, "daicho")) ||
		    !json_is_integer(format) || !json_is_integer(schema))
			rc = line_error(im, "not the header of a daicho export "
			    "({\"daicho\":\"export\",\"format\":%d,...})",
			    TRANSFER_FORMAT);
		else if (json_integer_value(format) != TRANSFER_FORMAT ||
		    json_integer_value(schema) > LEDGER_SCHEMA_VERSION)
			rc = line_error(im, "an export from a newer daicho (format "
			    "%lld, schema %lld; this one reads format %d up to schema "
			    "%d: upgrade daicho)", (long long)json_integer_value(format),
			    (long long)json_integer_value(schema), TRANSFER_FORMAT,
			    LEDGER_SCHEMA_VERSION);
		else
			rc = 0;
		goto done;
	}
	if (name == NULL || !json_is_object(row) || json_object_size(record) != 2) {
		rc = line_error(im, "not a record {\"table\": NAME, \"row\": "
		    "{...}}");
		goto done;
	}
	for (size_t i = 0; i < TABLE_COUNT; i++)
		if (strcmp(tables[i].name, name) == 0) {
			rc = import_row(im, i, row);
			goto done;
		}
	rc = line_error(im, "no table '%s' in a ledger", name);
done:
	json_decref(record);
	return rc;
}

/* Refuse (ERR_CONFLICT) a ledger that holds any row. */
static int
require_empty(struct ledger *ledger, struct err *err)
{
	for (size_t i = 0; i < TABLE_COUNT; i++) {
		struct db_stmt *st = NULL;
		int rc;

		if ((rc = db_prepare(ledger, tables[i].select, &st, err)) < 0)
			return rc;
		rc = db_step(st);
		db_reset(st);
		if (rc == DB_ROW)
			return err_set(err, ERR_CONFLICT, "the ledger at %s is not "
			    "empty (it has %s; import loads only into a new ledger: "
			    "'daicho --ledger NEW init', then import there)",
			    ledger_path(ledger), tables[i].name);
		if (rc != DB_DONE)
			return db_error(ledger, rc, err, "reading the ledger");
	}
	return 0;
}

int
transfer_import(struct ledger *ledger, const char *text, size_t len,
    json_t **counts, struct err *err)
{
	struct import im = { .ledger = ledger, .err = err };
	const char *p = text, *end = text + len;
	bool first = true;
	int rc;

	for (size_t i = 0; i < TABLE_COUNT; i++)
		buf_init(&im.tables[i].insert_keys);
	buf_init(&im.decoded);
	if ((rc = ledger_begin(ledger, err)) < 0)
		goto done;
	if ((rc = require_empty(ledger, err)) < 0)
		goto fail;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t line_len = (size_t)((nl ? nl : end) - p);

		im.line++;
		if (line_len > 0 && !(line_len == 1 && *p == '\r')) {
			if ((rc = import_line(&im, p, line_len, first)) < 0)
				goto fail;
			first = false;
		}
		p += line_len + (nl != NULL);
	}
	if (first) {
		im.line = 1;
		rc = line_error(&im, "empty: an export starts with its header "
		    "line");
		goto fail;
	}
	/* What the ledger derives, it derives again: never the file's. */
	if ((rc = task_derived_fix(ledger, err)) < 0 ||
	    (rc = ledger_after_import(ledger, err)) < 0)
		goto fail;
	if ((rc = ledger_commit(ledger, err)) < 0)
		goto done;
	if (counts != NULL) {
		*counts = json_object();
		for (size_t i = 0; i < TABLE_COUNT; i++)
			if (im.tables[i].rows > 0)
				json_object_set_new(*counts, tables[i].name,
				    json_integer(im.tables[i].rows));
	}
	goto done;
fail:
	ledger_rollback(ledger);
done:
	for (size_t i = 0; i < TABLE_COUNT; i++) {
		db_finalize(im.tables[i].insert);
		for (int c = 0; im.tables[i].names && c < im.tables[i].columns; c++)
			free(im.tables[i].names[c]);
		free(im.tables[i].names);
		free(im.tables[i].types);
		buf_release(&im.tables[i].insert_keys);
	}
	buf_release(&im.decoded);
	return rc;
}
