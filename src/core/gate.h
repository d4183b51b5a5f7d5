/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Gates and approvals: policy on the commands agents run. A gate is a
 * command pattern (shell/cmdline.h says how patterns match), whether a
 * human approval is needed, and commands that must pass right before.
 *
 * An approval is a request for one exact command (its fingerprint: the
 * words and the directory) by one agent. A human decides it at a terminal
 * (the command line layer checks that); approved, it is good once, for
 * that agent and command only, until it expires, and a condition given
 * with it is re-checked just before the command runs. A denial is
 * remembered for the command's words (command_key, any directory): any
 * agent's request for it is refused at once, with who denied it, when and
 * why. Nothing else in the ledger (a message, a note, a task body) is
 * ever read as an approval.
 */
#ifndef DAICHO_GATE_H
#define DAICHO_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"
#include "shell/cmdline.h"

#define APPROVAL_DEFAULT_TTL_MS (60 * 60 * 1000LL)

struct gate_spec {
	const char *pattern;
	bool approval;              /* a human must approve each run */
	char *const *requires;      /* shell commands that must pass first */
	size_t require_count;
	const char *note;           /* shown when the gate stops a command */
};

/* Add a gate; *id is its id. A bad pattern is ERR_USAGE, a duplicate
 * ERR_CONFLICT. */
int gate_add(struct ledger *ledger, const struct gate_spec *spec, int64_t *id,
    struct err *err);

/*
 * Remove gate id (ERR_NOT_FOUND when none), logged with checked (what
 * showed that a human removes it; borrowed, may be NULL).
 */
int gate_remove(struct ledger *ledger, int64_t id, json_t *checked,
    struct err *err);

/*
 * Every gate (new reference in *out): {id, pattern, approval (0/1),
 * requires: [commands], note, created_ms, created_by}.
 */
int gate_list(struct ledger *ledger, json_t **out, struct err *err);

/* The gates (as gate_list() gives them) whose pattern matches line. */
int gate_match(struct ledger *ledger, const struct cmdline *line,
    json_t **matching, struct err *err);

/* A command that needs an approval, as gate exec or a hook sees it. */
struct approval_key {
	const char *fingerprint; /* cmdline_fingerprint() with the directory */
	const char *command_key; /* cmdline_fingerprint() with no directory */
	const char *command;     /* the command as shown to the human */
	const char *cwd;
	int64_t gate;            /* the gate that asks for it */
};

/*
 * The standing denial of key->command_key: one that no later approval of
 * the caller's for this fingerprint (a human reconsidering) has lifted
 * (new reference in *denial, NULL when none):
 * {id, decided_by, decided_tty, decided_ms, reason, requester}.
 */
int approval_find_denial(struct ledger *ledger, const struct approval_key *key,
    json_t **denial, struct err *err);

/*
 * The caller's approved, unused, unexpired approval for key->fingerprint
 * (new reference in *approval, NULL when none): {id, condition,
 * decided_by, expires_ms}.
 */
int approval_find_granted(struct ledger *ledger, const struct approval_key *key,
    json_t **approval, struct err *err);

/*
 * Use approval id (the caller's, still approved and unexpired) in one
 * transaction; ERR_CONFLICT when it is no longer usable (used by a racing
 * run, expired).
 */
int approval_use(struct ledger *ledger, int64_t id, struct err *err);

/*
 * The caller's pending request for key (created when it has none); *id is
 * its id and *created whether it is new. Refused with ERR_REFUSED when the
 * command is denied (see approval_find_denial()).
 */
int approval_request(struct ledger *ledger, const struct approval_key *key,
    int64_t *id, bool *created, struct err *err);

/*
 * Gates on landing (core/land.h): a gate whose pattern is
 * GATE_LAND_PREFIX followed by a path glob ("land:migrations/" and a glob
 * under it) asks a person's approval before work that changes a matching
 * path lands. Such a gate never matches a command.
 */
#define GATE_LAND_PREFIX "land:"

/*
 * The path globs of the approval gates on landing, appended to globs, and
 * their gate ids to ids in step (as text). Returns 0 or the error.
 */
int gate_land_globs(struct ledger *ledger, struct strlist *globs,
    struct strlist *ids, struct err *err);

/* Where a landing's approval stands (landing_approval()). */
enum landing_approval {
	LANDING_PENDING,  /* asked, not decided yet (made now, or before) */
	LANDING_APPROVED, /* approved, unused and unexpired: it may land */
	LANDING_DENIED,   /* denied: it may not */
};

/*
 * The approval of a landing (key->fingerprint names the tasks and their
 * commits), whoever asked for it: the newest request for it that is still
 * pending, approved and good, or denied; when there is none, a new
 * pending request by agent actor (0: the connection's caller). *id and
 * *state say which; for a denial, *reason its reason (may be empty) and
 * who decided. One transaction.
 */
int landing_approval(struct ledger *ledger, int64_t actor,
    const struct approval_key *key, int64_t *id, enum landing_approval *state,
    struct buf *reason, struct err *err);

/*
 * Use approval id of a landing, whoever asked for it, inside the caller's
 * write transaction: ERR_CONFLICT when it is no longer approved and good.
 */
int landing_approval_use(struct ledger *ledger, int64_t actor, int64_t id,
    struct err *err);

/* A human's decision on a pending request. */
struct approval_decision {
	bool approve;
	const char *condition; /* approve: a shell command re-checked at run */
	const char *reason;    /* deny: why */
	const char *user;      /* who decided (login name) */
	const char *tty;       /* where (the terminal) */
	int64_t ttl_ms;        /* approve: good for this long */
	json_t *checked;       /* what showed that a human decides, for the
				  event (borrowed), or NULL */
};

/*
 * Decide request id (ERR_NOT_FOUND when none, ERR_CONFLICT when it is not
 * pending), logged.
 */
int approval_decide(struct ledger *ledger, int64_t id,
    const struct approval_decision *decision, struct err *err);

/*
 * Approvals (new reference in *out): pending first, then the newest
 * decided (limit of them, 0: all). {id, state, command, cwd, gate,
 * pattern, requester, requested_ms, decided_ms, decided_by, decided_tty,
 * condition, reason, expires_ms, used_ms}.
 */
int approval_list(struct ledger *ledger, int64_t limit, json_t **out,
    struct err *err);

#endif
