/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Moving a ledger: the whole of it as JSON lines, and back.
 *
 * An export is one header line, {"daicho":"export","format":1,"schema":N},
 * then one line per row of every table, {"table":NAME,"row":{COLUMN:VALUE,
 * ...}}, tables in an order that imports (what a row refers to comes
 * before it), rows in key order, ids kept. Values are JSON integers,
 * reals, strings and null as stored; text or bytes that are not UTF-8 are
 * {"base64":"..."}. Exporting the same ledger twice gives the same bytes.
 */
#ifndef DAICHO_TRANSFER_H
#define DAICHO_TRANSFER_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"
#include "core/ledger.h"

/* The format number of the header line; an import refuses other ones. */
#define TRANSFER_FORMAT 1

/*
 * Called once per line of an export, header first, with the record (a
 * JSON object, borrowed for the call). A negative return (with err
 * filled) stops the export and is returned by transfer_export().
 */
typedef int (*transfer_emit_fn)(void *arg, json_t *record, struct err *err);

/*
 * Walk the whole ledger in one read transaction (a consistent snapshot,
 * whatever others write meanwhile) and hand each line of its export to
 * emit. Returns 0 or a negative error.
 */
int transfer_export(struct ledger *ledger, transfer_emit_fn emit, void *arg,
    struct err *err);

/*
 * Load an export (text, len bytes of JSON lines; empty lines are skipped)
 * into the ledger, in one write transaction: all of it, or nothing.
 * ERR_CONFLICT when the ledger already holds a row of any table;
 * ERR_USAGE naming the first bad line (not JSON, not a record, an unknown
 * table or column, a value of the wrong type, a row the ledger's
 * constraints refuse, a missing or newer header). On success, when
 * counts is not NULL, *counts is a new JSON object {table: rows
 * imported} of the tables that had rows, owned by the caller.
 */
int transfer_import(struct ledger *ledger, const char *text, size_t len,
    json_t **counts, struct err *err);

#endif
