/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Tasks: adding, reading and listing them, and every change of their state.
 *
 * States: open → claimed → reported → verified (→ landed, core/land.h);
 * claimed → blocked; any unfinished → cancelled; attempts exhausted →
 * failed. A task is ready when it is open (or claimed with an expired
 * lease), every task it comes after is done (TASK_DONE_SQL), and its
 * touches overlap no live claim (TASK_LIVE_CLAIM_SQL). Every move, and
 * the ways back, is one row of the table in task.c
 * (task_transition_legal()); every write of tasks.state checks its move
 * against it (TASK_MOVE_CHECK()).
 */
#ifndef DAICHO_TASK_H
#define DAICHO_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"
#include "util/bug.h"
#include "util/strlist.h"

/*
 * Whether the task of a row of tasks counts as done for the tasks that
 * come after it: landed, or verified and not waiting to land.
 */
#define TASK_DONE_SQL TASK_DONE_OF_SQL("")
/* TASK_DONE_SQL of the columns of table alias t, given as "t.". */
#define TASK_DONE_OF_SQL(t)                                                  \
	"(" t "state = 'landed' OR (" t "state = 'verified' AND "              \
	t "land_queued_ms IS NULL))"

/*
 * Whether task t (an alias), held by agent a, is a live claim whose
 * touches no other claim may overlap, ?1 being the time now: claimed with
 * a running lease by an agent that has not ended, reported and awaiting
 * verification, or blocked while its holder has not ended (so that
 * 'unblock' can give it back: its scope is kept, issue 31).
 */
#define TASK_LIVE_CLAIM_SQL(t, a)                                            \
	"((" t ".state = 'claimed' AND " t ".lease_expires_ms > ?1 AND "        \
	a ".state <> 'ended') OR " t ".state = 'reported' OR (" t ".state ="    \
	" 'blocked' AND " a ".state <> 'ended'))"

/*
 * The event that last set task ?1's touches (its add, or an edit that set
 * them), as e, joined to its actor as a: one row, or none.
 */
#define TASK_TOUCHES_LAST_SET_SQL                                            \
	" FROM events e JOIN agents a ON a.id = e.actor"                     \
	" WHERE e.task = ?1 AND (e.kind = 'add' OR (e.kind = 'edit' AND"      \
	"  json_extract(e.detail, '$.touches') IS NOT NULL))"                 \
	" ORDER BY e.id DESC LIMIT 1"

/*
 * 1 when a person set them (of TASK_TOUCHES_LAST_SET_SQL's row), proven at
 * a terminal: an edit of them always is (cmd/person.c); an add says so in
 * its detail. Else 0. What exempts a task from the protected paths
 * (core/verify.c), and what a person's edit of the same touches takes
 * over (core/repair.c).
 */
#define TASK_TOUCHES_BY_PERSON_SQL                                           \
	"CASE WHEN a.kind = 'human' AND (e.kind = 'edit' OR"                 \
	"  CAST(json_extract(e.detail, '$.person') AS TEXT) IN ('1', 'true'))" \
	" THEN 1 ELSE 0 END"

#define TASK_DEFAULT_MAX_ATTEMPTS 3
/*
 * The longest title, in bytes: a title is the one line that every listing
 * shows; the rest of what a task says belongs in its body (unlimited).
 */
#define TASK_TITLE_MAX_BYTES 1000
#define TASK_DEFAULT_LEASE_MS (30 * 60 * 1000)
#define TASK_DEFAULT_LEASE_MS_SQL "1800000"
/* The longest lease a claim may ask for, unless the "max-lease" setting
 * says otherwise; its maximum hold may be TASK_MAX_HOLD_LEASES of them. */
#define TASK_DEFAULT_MAX_LEASE_MS (4 * 60 * 60 * 1000)

/* What "add" is given; one per task, one per line for a batch. */
struct task_spec {
	size_t line;             /* batch line (1-based), 0 outside a batch */
	const char *key;         /* batch key others may name in after, or NULL */
	const char *title;
	const void *body;        /* any bytes */
	size_t body_bytes;
	int64_t priority;
	int64_t max_attempts;    /* 0: the default */
	int64_t check_timeout_ms; /* for cmd: checks; 0: the default (10m) */
	bool by_person;          /* added by a caller proven a person at a
				  * terminal (cmd/person.c): only then do its
				  * touches exempt it from the ledger's
				  * protected paths */
	bool no_baseline;        /* judged without the claim's base (a
				  * person's call: the caller checks) */
	const char *check_needs; /* "net": its commands get the network (a
				  * person's call: the caller checks); NULL */
	const char *parent;      /* id text, or NULL */
	struct strlist after;    /* ids ("12", "#12", "T12") or batch keys */
	struct strlist touches;  /* globs */
	struct strlist protects; /* globs a report must not change */
	struct strlist checks;   /* done-when specs */
	struct strlist labels;
};

void task_spec_release(struct task_spec *spec);

/* A task as read from the ledger. Owned strings; task_free_fields(). */
struct task {
	int64_t id;
	char *title;
	char *state;
	int64_t priority;
	int64_t parent;            /* 0: none */
	int64_t owner_id;          /* 0: none */
	char *owner;               /* owner's name, or NULL */
	int64_t lease_expires_ms;  /* 0: no lease */
	int64_t attempts;
	int64_t max_attempts;
	int64_t unmet_deps;        /* tasks it comes after not yet verified */
	char *report_commit;       /* or NULL */
	char *report_note;         /* or NULL */
	char *block_reason;        /* or NULL */
	int64_t created_ms;
	int64_t updated_ms;
	int64_t check_timeout_ms;  /* 0: the default */
	int64_t checks_version;    /* raised by every change of the checks */
	int64_t max_hold_ms;       /* of the current claim; 0: none */
	int64_t claim_named_ms;    /* when its holder last named it; 0: never */
	char *claim_base;          /* the trunk's commit at the claim, or NULL */
	int64_t land_queued_ms;    /* verified, waiting to land since; 0: not */
	int64_t land_tries;        /* landings sent back */
	char *land_note;           /* why the last landing was sent back */
	char *land_waiting;        /* why its landing waits for a person */
	char *landed_commit;       /* the trunk commit that holds it */
	char *landed_trunk;        /* the branch it landed on */
	int64_t landed_ms;         /* when it landed; 0: not */
	int64_t body_bytes;
	int64_t saves;             /* number of saved results */
	int64_t result_bytes;      /* size of the latest, -1 when none */
	/* Filled only when asked for (with_edges). */
	struct strlist labels;
	struct strlist touches;
	struct strlist protects;
	struct strlist checks;
	int64_t *after;
	size_t after_count;
	bool no_baseline;          /* a person said: judge without the claim's
				      * base (verification's vacuous check) */
	char *check_needs;         /* "net", or NULL */
};

/*
 * Free what task owns (its strings and lists) and zero it; the task itself
 * is the caller's. Not task_release_claim(), which gives a claim back.
 */
void task_free_fields(struct task *task);

/*
 * Parse a task id as users write it: "12", "#12", "T12" or "t12".
 * Returns 0 and sets *id, or ERR_USAGE naming the text.
 */
int task_parse_id(const char *text, int64_t *id, struct err *err);

/*
 * The fields of a task that the ledger derives from other rows, and keeps
 * for speed: unmet_deps (the tasks it comes after that are not done) and
 * has_touches (whether it declares any). task_derived_fix() sets them from
 * those rows, in the caller's write transaction (import does: an export's
 * own values are not trusted); task_derived_wrong() counts the tasks whose
 * kept values disagree (*count), their ids into ids ("#3, #7", the first
 * ten). Both return 0 or the ledger's error.
 */
int task_derived_fix(struct ledger *ledger, struct err *err);
int task_derived_wrong(struct ledger *ledger, int64_t *count, struct buf *ids,
    struct err *err);

/* Whether state names a task state. */
bool task_state_valid(const char *state);

/*
 * Whether a task may move from state from to state to: a row of the
 * table of its lifecycle in task.c. A name that is no state is on no row.
 */
bool task_transition_legal(const char *from, const char *to);

/*
 * An invariant, on in every build: a write of tasks.state moves the task
 * from from, the state it read in its transaction (or named in the
 * write's WHERE), to to, along a row of the table. BUG otherwise, at the
 * writer's line. Costs a few string comparisons, no statement.
 */
#define TASK_MOVE_CHECK(from, to)                                             \
	BUG_ON(!task_transition_legal(from, to), "task moved from %s to %s: "  \
	    "no row of its lifecycle (task_transition_legal())", from, to)

/*
 * Check a done-when spec: "file:PATH" (relative, no "..", not absolute),
 * "cmd:SHELL" (non-empty), "saved" or "commit". Returns 0 or ERR_USAGE.
 */
int task_check_spec(const char *spec, struct err *err);

/*
 * Add count tasks in one transaction: all or none. Every spec is validated
 * first; errors name the batch line. Batch keys in after may point forward;
 * a cycle among them is refused (ERR_CONFLICT) with the cycle named. ids
 * (count entries) receives the new ids in order.
 */
int task_add(struct ledger *ledger, int64_t actor, struct task_spec *specs,
    size_t count, int64_t *ids, struct err *err);

/* The few fields of a task a runner looks at after every launch and exit. */
struct task_state {
	char state[16];    /* open, claimed, reported, ... */
	int64_t owner_id;  /* 0: none */
	int64_t attempts;
};

/*
 * Read task id's state, holder and attempts, without its edges and
 * checks (task_get() reads them all). ERR_NOT_FOUND when there is none.
 */
int task_get_state(struct ledger *ledger, int64_t id, struct task_state *out,
    struct err *err);

/* Read one task, with its edges. ERR_NOT_FOUND when there is none. */
int task_get(struct ledger *ledger, int64_t id, struct task *out,
    struct err *err);

struct task_filter {
	const char *state;  /* only this state, or NULL */
	bool ready;         /* only what "claim --next" could take, in its order */
	int64_t owner;      /* only tasks owned by this agent, or 0 */
	const char *label;  /* only tasks with this label, or NULL */
	const char *owner_name; /* only tasks held by an agent of this name */
	const char *text;   /* only tasks whose title or body holds this text
			     * (ASCII letters compared without case) */
	int64_t created_since_ms; /* only tasks added then or later, or 0 */
	int64_t updated_since_ms; /* only tasks changed then or later, or 0 */
	int64_t limit;      /* at most this many, or 0 for all */
	bool with_edges;    /* fill labels, touches, checks and after */
};

/*
 * Call fn for each task matching filter, in id order (ready: in claim
 * order, highest priority then oldest). The task lives only for the call.
 * A non-zero return from fn stops the walk and is returned.
 */
int task_each(struct ledger *ledger, const struct task_filter *filter,
    int (*fn)(const struct task *task, void *arg), void *arg,
    struct err *err);

/*
 * Count the open tasks (labelled label; NULL: any) into *open, and of
 * those, the ones no unverified task holds back into *ready.
 */
int task_count_open(struct ledger *ledger, const char *label, int64_t *open,
    int64_t *ready, struct err *err);

/* Count tasks by state: fills counts for names (count entries). */
int task_count_by_state(struct ledger *ledger, const char *const *states,
    int64_t *counts, size_t count, struct err *err);

/*
 * Count the tasks whose ids are in ids_json (a JSON array text) that are in
 * state (NULL: any; "queued": verified and waiting to land), into *count.
 */
int task_count_among(struct ledger *ledger, const char *ids_json,
    const char *state, int64_t *count, struct err *err);

/*
 * Of the tasks in ids_json, count those still in flight for a runner:
 * reported and awaiting verification, open but waiting out a backoff
 * that had not ended at as_of_ms (when the runner last found nothing ready:
 * a backoff that ended since makes the task ready, not finished), or
 * verified and queued to land, unless the landing waits for a person (the
 * main work tree in its way, or landing paused).
 */
int task_count_in_flight(struct ledger *ledger, const char *ids_json,
    int64_t as_of_ms,
    int64_t *count, struct err *err);

/*
 * The claimed tasks held by any agent in agents_json (a JSON array of agent
 * ids): fn is called with each task id and its owner, in id order.
 */
int task_each_claimed_by(struct ledger *ledger, const char *agents_json,
    int (*fn)(int64_t task, int64_t owner, void *arg), void *arg,
    struct err *err);

/* Every dependency edge (task comes after after), for graphs. */
int task_each_edge(struct ledger *ledger,
    int (*fn)(int64_t task, int64_t after, void *arg), void *arg,
    struct err *err);

/*
 * How long a claim lives on generic heartbeats alone (commands of the
 * holder that do not name the task), in leases, unless the claim or the
 * ledger's "max-hold" setting says otherwise.
 */
#define TASK_MAX_HOLD_LEASES 3

/* What a claim asks for. */
struct claim_terms {
	int64_t lease_ms;    /* the lease, renewed by the holder's heartbeats;
				0: the ledger's "lease" setting, else
				TASK_DEFAULT_LEASE_MS */
	int64_t max_hold_ms; /* the maximum hold; 0: the ledger's default */
	const char *base;    /* the trunk's commit; NULL: read it now */
};

/*
 * Whether a claim may ask for lease_ms and max_hold_ms (0: not asked):
 * ERR_USAGE, saying which and how to raise the bound, when either is past
 * the "max-lease" setting (TASK_DEFAULT_MAX_LEASE_MS when unset), the
 * hold past TASK_MAX_HOLD_LEASES of it. task_claim() checks the same; a
 * runner asks first, before it starts anything.
 */
int task_lease_allowed(struct ledger *ledger, int64_t lease_ms,
    int64_t max_hold_ms, struct err *err);

/*
 * Claim a task for agent with a lease of terms->lease_ms. With id, that task (it
 * must be ready, or already held by agent: then the lease and the hold are
 * renewed and nothing else changes); with id 0, the first ready task
 * (label: only those with this label). A new claim records the trunk's
 * commit (terms->base, else task_trunk_tip(), read before the write lock),
 * the claim's time as the last time its task was named, and the maximum
 * hold (terms->max_hold_ms, else the ledger's "max-hold" setting, else
 * TASK_MAX_HOLD_LEASES leases; also read before the lock). *claimed receives the id. ERR_NOT_FOUND
 * when nothing is ready (the message says why), ERR_CONFLICT when the task
 * is held by another agent, waits on others, overlaps a live claim, or is
 * finished.
 */
int task_claim(struct ledger *ledger, int64_t agent, int64_t id,
    const char *label, const struct claim_terms *terms, int64_t *claimed,
    struct err *err);

/*
 * The commit the trunk is at, read from git's files without starting git:
 * what a claim records as the base its work must be new against. The
 * trunk is the branch trunk (the "trunk" setting; NULL or "" when unset),
 * else the branch the main work tree of the ledger's repository has out
 * (when it is detached: main, else master, else its commit). With remote
 * (the "remote" setting when a person set it; NULL, "" or "none": none),
 * that branch of the remote as this clone last fetched it, when it has it
 * (landing pushes there: core/land.h). Returns 0 with the hash in out; 1
 * when the ledger is in no git repository or the ref cannot be read that
 * way.
 */
int task_trunk_tip(struct ledger *ledger, const char *trunk,
    const char *remote, struct buf *out);

/*
 * The remote whose trunk the trunk is (core/land.h): the "remote" setting
 * (setting, or NULL when unset; "none": none); unset, origin for a ledger
 * shared by several machines (PostgreSQL), whose clones share work through
 * it, and none for a ledger of one machine. NULL: none.
 */
const char *task_trunk_remote(struct ledger *ledger, const char *setting);

/*
 * task_trunk_tip() of the ledger's "trunk" and "remote" settings (as
 * task_trunk_remote() reads the latter), now. Returns what it returns.
 */
int task_trunk_now(struct ledger *ledger, struct buf *out);

/* Give a claimed or blocked task back (open); the attempt is not counted. */
int task_release_claim(struct ledger *ledger, int64_t agent, int64_t id,
    struct err *err);

/*
 * End a failed attempt of agent's claimed task id: it becomes open again,
 * but ready only after retry_after_ms (a backoff); or failed when its
 * attempts reached limit (or its max attempts, whichever is lower; limit 0:
 * max attempts). The attempt stays counted. *failed tells which.
 */
int task_requeue(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, int64_t retry_after_ms, int64_t limit, bool *failed,
    struct err *err);

/*
 * Inside a write transaction: refuse (ERR_CONFLICT) when the touches task
 * id has now overlap another live claim (TASK_LIVE_CLAIM_SQL) or a live
 * reservation of an agent other than holder; for a task that is itself
 * held (an edit of its scope). 0 when they overlap nothing.
 */
int task_scope_conflict(struct ledger *ledger, int64_t id, int64_t holder,
    struct err *err);

/* Mark a claimed task blocked: it needs a human. reason is required. */
int task_block(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err);

/*
 * Cancel a task that is not verified or already cancelled, whoever agent
 * is (task_cancel_allowed() checks who may).
 */
int task_cancel(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err);

/*
 * task_cancel() for agent, in the same transaction, when agent may: a task
 * someone holds (claimed, blocked or reported) only by its holder, the
 * agent that added it, or a human; a failed task (giving it up) only by
 * the agent that added it or a human; an open task by anyone. Others get
 * ERR_CONFLICT naming the holder, as release does.
 */
int task_cancel_allowed(struct ledger *ledger, int64_t agent, int64_t id,
    const char *reason, struct err *err);

/*
 * The holder says a claimed task is done: it becomes reported, awaiting
 * verification. commit (a full hash, resolved by the caller) and note may
 * be NULL.
 */
int task_report(struct ledger *ledger, int64_t agent, int64_t id,
    const char *commit, const char *note, struct err *err);

/* Usage that comes with a saved result; negative / NULL when not given. */
struct task_usage {
	int64_t tokens_in;
	int64_t tokens_out;
	double cost;
	const char *model;
};

/*
 * Save a result for a task the agent holds (claimed). The newest save is
 * the result; every save stays in the ledger and the event log.
 */
int task_save(struct ledger *ledger, int64_t agent, int64_t id,
    const void *result, size_t result_bytes, const struct task_usage *usage,
    struct err *err);

/* The task's body, appended to out. */
int task_body(struct ledger *ledger, int64_t id, struct buf *out,
    struct err *err);

/*
 * What task id waits on: the tasks it comes after that are not done yet,
 * as "#N", appended to *ids, in id order.
 */
int task_waits_on(struct ledger *ledger, int64_t id, struct strlist *ids,
    struct err *err);

/*
 * The tasks that come after task id, as "#N (state)", appended to *out in
 * id order.
 */
int task_dependents(struct ledger *ledger, int64_t id, struct strlist *out,
    struct err *err);

/*
 * The questions task id was blocked with and the answers it was unblocked
 * with ('unblock --answer'), oldest first, appended to out as lines "Q:
 * ..." and "A: ..."; nothing when there are none.
 */
int task_answers(struct ledger *ledger, int64_t id, struct buf *out,
    struct err *err);

/*
 * Why task id's last landing was sent back (core/land.h), appended to out,
 * and how many times it was (*tries), while it has not landed since; out
 * is left as it was when there is nothing to say.
 */
int task_land_note(struct ledger *ledger, int64_t id, struct buf *out,
    int64_t *tries, struct err *err);

/*
 * Inside the caller's write transaction: the tasks that come after id,
 * which now counts as done (verified, or landed), wait on one task fewer.
 * Returns 0 or the error.
 */
int task_release_dependents(struct ledger *ledger, int64_t id,
    struct err *err);

/*
 * Inside the caller's write transaction: every verified task waiting in
 * the landing queue leaves it, as done when verified (landing was turned
 * off): each counts for the tasks that come after it. *count receives how
 * many. Returns 0 or the error.
 */
int task_leave_landing_queue(struct ledger *ledger, int64_t *count,
    struct err *err);

/* The latest saved result, appended to out; ERR_NOT_FOUND when none. */
int task_result(struct ledger *ledger, int64_t id, struct buf *out,
    struct err *err);

#endif
