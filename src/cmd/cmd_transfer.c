/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* Moving a ledger: daicho export and daicho import (core/transfer.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/transfer.h"

/* transfer_emit_fn: print one record as one line of JSON. */
static int
print_record(void *arg, json_t *record, struct err *err)
{
	return cmd_print_json(arg, json_incref(record));
}

static int
exec_export(struct cmd_ctx *ctx)
{
	return transfer_export(ctx->ledger, print_record, ctx, ctx->err);
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "export",
	.summary = "write the whole ledger as JSON lines (a backup, or a move)",
	.help =
	    "Writes every row of every table of the ledger to stdout, one JSON\n"
	    "object a line, from one consistent snapshot (agents may go on\n"
	    "working meanwhile). 'daicho import' loads it into a new ledger:\n\n"
	    "  daicho export > ledger.jsonl\n"
	    "  daicho --ledger /new/ledger.db init\n"
	    "  daicho --ledger /new/ledger.db import ledger.jsonl\n\n"
	    "The first line is the header {\"daicho\":\"export\",\"format\":1,\n"
	    "\"schema\":N}; then {\"table\":NAME,\"row\":{COLUMN:VALUE,...}} for\n"
	    "agents, tasks, deps, labels, touches, protects, checks, saves,\n"
	    "verdicts, check_runs, gates, approvals, waits, wait_items,\n"
	    "messages, reservations, settings and events, in that order (what a\n"
	    "row refers to comes first), rows in key order, ids as they are.\n"
	    "Times are integer milliseconds; text and bytes that are not UTF-8\n"
	    "are {\"base64\":\"...\"}. The same ledger exports to the same bytes.\n\n"
	    "A backup: the export is a file any tool can read, diff and keep,\n"
	    "and it loads into either back end. SQLite's own copy of the file,\n"
	    "'sqlite3 LEDGER \".backup COPY\"', is faster for a large ledger and\n"
	    "safe while agents write (never copy the file with cp while they\n"
	    "do: the -wal holds the latest commits); restore it by pointing\n"
	    "--ledger at the copy. Logs beside the ledger are in neither.\n",
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_export,
};

static int
exec_import(struct cmd_ctx *ctx)
{
	struct buf text = BUF_INIT;
	json_t *counts = NULL, *count;
	const char *table;
	int64_t total = 0;
	int rc;

	/* A person's alone: cmd_check_person_acts() proved one. */
	if (strcmp(ctx->argv[0], "-") == 0) {
		rc = err_set(ctx->err, ERR_USAGE, "import reads a FILE, not stdin "
		    "(a person imports at a terminal: 'daicho import FILE')");
		goto done;
	}
	if ((rc = cmd_read_input(ctx, ctx->argv[0], &text)) < 0)
		goto done;
	if ((rc = transfer_import(ctx->ledger, text.buf, text.len, &counts,
		 ctx->err)) < 0)
		goto done;
	json_object_foreach(counts, table, count)
		total += json_integer_value(count);
	if (ctx->json) {
		rc = cmd_print_json(ctx, json_pack("{s:s,s:I,s:O}", "ledger",
		    ledger_path(ctx->ledger), "rows", (json_int_t)total, "tables",
		    counts));
	} else if (!ctx->quiet) {
		const char *sep = " (";

		printf("Imported %lld rows into %s", (long long)total,
		    ledger_path(ctx->ledger));
		json_object_foreach(counts, table, count) {
			printf("%s%s %lld", sep, table,
			    (long long)json_integer_value(count));
			sep = ", ";
		}
		printf("%s\n", total ? ")" : "");
	}
done:
	json_decref(counts);
	buf_release(&text);
	return rc;
}

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "import FILE",
	.summary = "load a 'daicho export' into a new, empty ledger (a human only)",
	.help =
	    "Loads FILE, written by 'daicho export', into the\n"
	    "ledger, in one transaction: every row, ids kept, or nothing. The\n"
	    "ledger must be empty ('daicho init' makes one; see 'daicho export\n"
	    "--help' for the whole move). Prints how many rows each table got.\n\n"
	    "Refused, with nothing changed: a ledger that holds anything, exit 4;\n"
	    "a bad line (not JSON, not a record, an unknown table or column, a\n"
	    "value of the wrong type, a row the ledger's constraints refuse, a\n"
	    "NUL byte in text, a title that is not one line of at most 1000\n"
	    "bytes, an export from a newer daicho), exit 2, naming the line.\n"
	    "What the ledger derives (each task's unmet dependencies and touches)\n"
	    "it derives again from the rows: the file's values are not taken.\n\n"
	    "Only a human imports: an import writes history as it stands in the\n"
	    "file (events, approvals and who decided them, verdicts), and an\n"
	    "agent able to do that could forge an approval or a verification.\n"
	    "A caller with an agent identity, not at a terminal, or run under an\n"
	    "agent client process, is refused, exit 6 ('daicho help person').\n"
	    "So the file is named, not piped: stdin is the person's terminal.\n"
	    "The import records no event of its own: the ledger is the one\n"
	    "exported.\n\n"
	    "JSON: {ledger, rows, tables: {TABLE: rows}}.\n",
	.flags = CMD_NEEDS_LEDGER | CMD_RAW_ARGS,
	.min_args = 1,
	.max_args = 1,
	.exec = exec_import,
};
