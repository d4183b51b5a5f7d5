/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Usage: the tokens and cost that saves recorded, summed by task, agent or
 * model, and the totals a runner's budget counts.
 */
#ifndef DAICHO_USAGE_H
#define DAICHO_USAGE_H

#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

struct usage_row {
	const char *key;     /* "#12", an agent name or a model; "-" when none */
	int64_t tasks;       /* distinct tasks */
	int64_t saves;
	int64_t tokens_in;
	int64_t tokens_out;
	double cost;
};

/*
 * Call fn for each group (by: "task", "agent", "model", "label" — a task
 * with several labels counts under each — or "day", a UTC date
 * "2026-11-30"), largest cost first (days: oldest first), then a last row
 * with key NULL for the total. The row lives only for the call.
 */
int usage_each(struct ledger *ledger, const char *by,
    int (*fn)(const struct usage_row *row, void *arg), void *arg,
    struct err *err);

/*
 * Tokens (in + out) and cost saved after save id after_save for the tasks
 * whose ids are in tasks_json (a JSON array text, e.g. "[1,2,3]").
 */
int usage_since(struct ledger *ledger, int64_t after_save,
    const char *tasks_json, int64_t *tokens, double *cost, struct err *err);

/*
 * The saves of task (new array in *out): [{id, at_ms, agent, bytes,
 * tokens_in, tokens_out, cost, model}] oldest first, without the results.
 */
int usage_saves(struct ledger *ledger, int64_t task, json_t **out,
    struct err *err);

/* The largest save id (0 when none): a mark for usage_since(). */
int usage_mark(struct ledger *ledger, int64_t *save_id, struct err *err);

#endif
