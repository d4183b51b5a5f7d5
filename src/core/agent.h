/*
 * Agents: the named participants that hold claims. This module resolves
 * who is calling and records that they are alive.
 */
#ifndef DAICHO_AGENT_H
#define DAICHO_AGENT_H

#include <stdbool.h>
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

/* A resolved agent. Strings are owned (agent_release()). */
struct agent {
	int64_t id;
	char *name;
};

/*
 * Check that name can name an agent: 1 to 64 bytes of letters, digits and
 * ". _ - @ +", not starting with '-'. Returns 0, or ERR_USAGE.
 */
int agent_check_name(const char *name, struct err *err);

/*
 * Resolve the caller, first match wins: claim->name, the live agent bound
 * to claim->session_id, a new agent named "<kind>-<first 8 characters of the
 * session>" bound to it, else the human. A known agent is found without
 * taking the write lock; an unknown one is registered (an event). Fills
 * *out, and makes every later write transaction on ledger carry the
 * agent's heartbeat (see agent_heartbeat()): the ledger keeps a pointer to
 * *out, which must therefore outlive the ledger's use (one caller per
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

void agent_release(struct agent *agent);

#endif
