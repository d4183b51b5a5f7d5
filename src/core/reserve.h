/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Reservations: path globs an agent holds exclusively while it edits. Two
 * kinds make up the live set: explicit ones ('daicho reserve', with an
 * expiry, released by unreserve, by the end or staleness of the agent, or
 * when their task is done), and the touches of every live claim (claimed
 * with a running lease by an agent that has not ended, or reported and not
 * yet verified), which need no rows: they come and go with the claim.
 *
 * Overlap is util/glob's exact test, so it is conservative by
 * construction: two globs conflict when some path is covered by both (a
 * glob covers what it matches and everything below it).
 */
#ifndef DAICHO_RESERVE_H
#define DAICHO_RESERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

#define RESERVE_DEFAULT_TTL_MS (2 * 60 * 60 * 1000LL)

struct reserve_request {
	char *const *globs;
	size_t glob_count;
	int64_t task;           /* the task they are for, or 0 */
	int64_t ttl_ms;         /* they lapse after this long */
	int64_t stale_after_ms; /* a holder unseen this long holds nothing */
};

/*
 * Reserve every glob for the caller, all or nothing, in one transaction.
 * A glob that overlaps one held by another live agent is ERR_CONFLICT
 * naming the holder, its glob and when it was last seen; an invalid glob
 * is ERR_USAGE; an unknown task ERR_NOT_FOUND. The caller's own live
 * reservation of the same glob is renewed.
 */
int reserve_take(struct ledger *ledger, const struct reserve_request *request,
    struct err *err);

/*
 * Release the caller's explicit reservations of these globs (every one
 * with all). A glob the caller does not hold is ERR_NOT_FOUND. *released
 * counts them.
 */
int reserve_drop(struct ledger *ledger, char *const *globs, size_t glob_count,
    bool all, int64_t *released, struct err *err);

/*
 * The live set as a JSON array (new reference in *out), oldest first:
 * {source: "reserve"|"claim", id (null for a claim), glob, task, holder,
 * holder_seen_ms, created_ms, expires_ms (the lease end for a claim)}.
 */
int reserve_list(struct ledger *ledger, int64_t stale_after_ms, json_t **out,
    struct err *err);

/*
 * The paths (repository-relative) that a live reservation of an agent other
 * than agent covers, reading the live set once: *conflicts (new reference)
 * is an array, in the order of paths, of the covering reservation as
 * reserve_list() gives it with the path added ("path").
 */
int reserve_find_conflicts(struct ledger *ledger, int64_t agent,
    char *const *paths, size_t path_count, int64_t stale_after_ms,
    json_t **conflicts, struct err *err);

/*
 * Release every explicit reservation of agent, inside the caller's
 * transaction (the agent ended or went stale).
 */
int reserve_release_agent(struct ledger *ledger, int64_t agent, struct err *err);

#endif
