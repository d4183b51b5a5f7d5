/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Events: the append-only record of every state change. An event is written
 * in the same transaction as the change it records, so neither exists
 * without the other.
 */
#ifndef DAICHO_EVENT_H
#define DAICHO_EVENT_H

#include <jansson.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"

struct event {
	int64_t id;
	int64_t at_ms;
	const char *actor; /* agent name, or NULL */
	const char *kind;  /* "add", "claim", "report", ... */
	int64_t task;      /* 0 when about no task */
	const char *title; /* the task's title now, or NULL */
	const char *detail; /* JSON object text, or NULL */
};

/*
 * The hash chain (tamper evidence on one account): each event's hash is
 * the SHA-256 (SQL daicho_sha256(), hex) of the hash before it (by id;
 * '' for the first, or when the one before has none, an event from before
 * the chain) and its own columns, as text joined by '|':
 * prev|at_ms|actor|kind|task|detail, NULLs as ''. EVENT_HASH_SQL(ROW,
 * PREV) is that expression for the columns of ROW (a table alias) and the
 * SQL expression PREV for the hash before; one expression for writing and
 * for checking, on both engines.
 */
#define EVENT_HASH_SQL(row, prev) \
	"daicho_sha256(coalesce(" prev ", '') || '|' || CAST(" row ".at_ms AS" \
	" TEXT) || '|' || coalesce(CAST(" row ".actor AS TEXT), '') || '|' ||" \
	" " row ".kind || '|' || coalesce(CAST(" row ".task AS TEXT), '') ||" \
	" '|' || coalesce(" row ".detail, ''))"

/*
 * Append an event inside the caller's write transaction, chained to the
 * one before it (EVENT_HASH_SQL). detail (may be
 * NULL) is consumed: its reference is stolen. task may be 0; actor 0 means
 * the connection's caller (none when there is no caller). Through a pool
 * its failure may be reported by the transaction's next statement or its
 * commit instead (db_step_later()).
 */
int event_append(struct ledger *ledger, int64_t actor, const char *kind,
    int64_t task, json_t *detail, struct err *err);

/* event_append() in a transaction of its own. */
int event_record(struct ledger *ledger, int64_t actor, const char *kind,
    int64_t task, json_t *detail, struct err *err);

struct event_filter {
	int64_t task;      /* only this task's events, or 0 */
	int64_t after_id;  /* only events with a larger id */
	int64_t since_ms;  /* only events at or after this time, or 0 */
	int64_t limit;     /* the newest limit events (still in order), or 0 */
};

/*
 * Call fn for each matching event in id order. The struct and its strings
 * live only for the call. A non-zero return from fn stops the walk and is
 * returned.
 */
int event_each(struct ledger *ledger, const struct event_filter *filter,
    int (*fn)(const struct event *event, void *arg), void *arg,
    struct err *err);

/*
 * Count events of kind after event id after_id whose task is in ids_json
 * (a JSON array text).
 */
int event_count_among(struct ledger *ledger, const char *kind,
    int64_t after_id, const char *ids_json, int64_t *count, struct err *err);

/* The largest event id, 0 when none. */
int event_last_id(struct ledger *ledger, int64_t *id, struct err *err);

#endif
