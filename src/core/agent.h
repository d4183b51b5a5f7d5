/*
 * Agents: the named participants that hold claims. This module resolves
 * who is calling and records that they are alive.
 */
#ifndef DAICHO_AGENT_H
#define DAICHO_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"

/* Who the caller says it is, gathered by the command line layer. */
struct agent_claim {
	const char *name;       /* --as or $DAICHO_AGENT; NULL if neither */
	const char *session_id; /* a client session variable, or NULL */
	const char *kind;       /* claude, codex, gemini, script or human */
	const char *human_name; /* login name, used when nothing else is set */
};

/*
 * A resolved agent. id is 0 while the agent is new to the ledger: it is
 * registered by the first write transaction that the command commits, so a
 * refused command leaves no trace. Strings are owned (agent_release()).
 */
struct agent {
	int64_t id;
	char *name;
	char *kind;       /* for registering */
	char *session_id; /* for registering, or NULL */
};

/*
 * Check that name can name an agent: 1 to 64 bytes of letters, digits and
 * ". _ - @ +", not starting with '-'. Returns 0, or ERR_USAGE.
 */
int agent_check_name(const char *name, struct err *err);

/*
 * Resolve the caller, first match wins: claim->name, the live agent bound
 * to claim->session_id, a new agent named "<kind>-<first 8 characters of the
 * session>" bound to it, else the human. Only reads: an agent new to the
 * ledger gets out->id 0 and is registered (with an event) inside the first
 * write transaction on ledger, which then sets out->id and
 * ledger_caller(). Every write transaction on ledger carries the agent's
 * heartbeat (see agent_heartbeat()): the ledger keeps a pointer to *out,
 * which must therefore outlive the ledger's use (one caller per
 * connection, as one process is one caller).
 */
int agent_resolve(struct ledger *ledger, const struct agent_claim *claim,
    struct agent *out, struct err *err);

/*
 * The heartbeat of the resolved agent: its last seen time becomes now (a
 * stale agent is active again) and the leases it still holds are renewed
 * (those past half their length, so frequent beats do not rewrite every
 * claim; an expired lease is not revived).
 * Runs inside every write transaction once agent_resolve() succeeded; a
 * command that wrote nothing calls this to beat in a transaction of its own.
 */
int agent_heartbeat(struct ledger *ledger, struct agent *agent, struct err *err);

/*
 * Register the agent name (or take over the live one of that name) with
 * kind, role and pid: the process whose death frees its claims (0: none).
 * Fills *id.
 */
int agent_start(struct ledger *ledger, const char *name, const char *kind,
    const char *role, int64_t pid, int64_t *id, struct err *err);

/* End agent id (its claims stay, visible as such). */
int agent_end(struct ledger *ledger, int64_t id, struct err *err);

/* Heartbeat for count agents at once (a runner beating for its workers). */
int agent_beat(struct ledger *ledger, const int64_t *ids, size_t count,
    struct err *err);

/*
 * Live agents of this host whose recorded process is gone (a runner killed
 * with kill -9): their running leases expire now, so their tasks can be
 * taken at once, and they are ended. *reopened counts the claims freed.
 */
int agent_reap_dead(struct ledger *ledger, int64_t actor, int64_t *reopened,
    struct err *err);

void agent_release(struct agent *agent);

#endif
