/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Briefings built only from the ledger: the one-screen status ("needs you"
 * first) and the hand-off to a successor coordinator. Both are JSON
 * documents (the --json output itself); the command line layer renders
 * them for people.
 */
#ifndef DAICHO_BRIEF_H
#define DAICHO_BRIEF_H

#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"
#include "core/needs.h"

/*
 * The status, read in one snapshot (new reference in *out):
 *   now_ms;
 *   needs_you: every item that needs a person (core/needs.h), most
 *     urgent kind first, oldest first within a kind;
 *   agents: the live agents (as agent_list());
 *   landing: the landing queue and what landing sent back, as
 *     brief_landing() gives it;
 *   tasks: {state: count} for every state;
 *   events: the newest `events` events, oldest first: {id, at_ms, actor,
 *     kind, task, title (the task's, or null), detail}.
 */
int brief_status(struct ledger *ledger, const struct needs_options *options,
    int events, json_t **out, struct err *err);

/*
 * The landing queue (core/land.h) and what landing sent back that has not
 * landed since, oldest first, in a read snapshot of its own (new
 * reference in *out): [{task, title, landing (queued, landing, waiting,
 * sent back), since_ms, why (the wait's or the send-back's reason, or
 * null), commit}].
 */
int brief_landing(struct ledger *ledger, json_t **out, struct err *err);

/*
 * The hand-off briefing for a successor of agent from (0: the caller) in
 * one snapshot (new reference in *out): from, role, agents (live, waits
 * included), claims [{task, title, owner, owner_state, lease_expires_ms}],
 * waits (every open wait, as wait_list_open()), unread (messages not yet
 * read that were sent to from, to its role, or queued for its name),
 * reported [{task, title, owner, commit, reported_ms}], rejected [{task,
 * title, state, owner, summary, at_ms}], decisions (the newest events
 * that decided something, as status gives events: verdicts, cancels,
 * blocks, hand-overs, take-overs).
 */
int brief_handoff(struct ledger *ledger, int64_t from, int64_t stale_after_ms,
    json_t **out, struct err *err);

/*
 * Hand agent from's open waits (those it owns) and its role to the live
 * agent to, in one logged transaction. *moved counts the waits.
 */
int brief_transfer(struct ledger *ledger, const char *from, const char *to,
    int64_t *moved, struct err *err);

#endif
