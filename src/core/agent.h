/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Agents: the named participants that hold claims. This module resolves
 * who is calling and records that they are alive.
 */
#ifndef DAICHO_AGENT_H
#define DAICHO_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/err.h"
#include "core/ledger.h"

/* Who the caller says it is, gathered by the command line layer. */
struct agent_claim {
	const char *name;       /* --as or $DAICHO_AGENT; NULL if neither */
	const char *session_id; /* a client session variable, or NULL */
	const char *kind;       /* claude, codex, gemini, script or human */
	const char *human_name; /* login name, used when nothing else is set */
	const char *client_shell; /* an agent client's shell without its
				   * session variable (Gemini CLI's sets only
				   * GEMINI_CLI=1): the client whose session
				   * agent is looked up by process, or NULL */
	bool starting;          /* the session starts (again): an ended agent
				 * of the session does not stop it */
	int64_t client_pid;     /* the client's process, recorded when the
				 * agent is registered (0: none) */
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
	int64_t client_pid; /* for registering: the agent client's process */
	bool ended;       /* the session's agent ended: a command of the session
			   * may read, but never registers or beats it again */
	int64_t named_task; /* a task the command names: its beat renews that
			     * claim's maximum hold too (0: none) */
	struct agent_beat {  /* what the next beat writes (core/agent.c) */
		int64_t id;  /* the agent read; 0: none, nothing to write */
		int64_t read_ms; /* when it was read */
		bool lapsed; /* stale: its reservations lapsed */
		bool seen;   /* its last-seen time (and state) to write */
		bool due;    /* a lease of its to renew */
	} beat;
	bool beat_read;      /* beat was read before this transaction's lock */
	bool beat_resolved;  /* beat was read with the caller's name, for the
				first transaction */
};

/*
 * Check that name can name an agent: 1 to 64 bytes of letters, digits and
 * ". _ - @ +", not starting with '-', and not "daicho" in any case (the
 * sender of daicho's own messages). Returns 0, or ERR_USAGE.
 */
int agent_check_name(const char *name, struct err *err);

/*
 * Resolve the caller, first match wins: claim->name; the live agent bound
 * to claim->session_id; when the agent of that session ended (and the
 * session is not starting), that ended agent, with out->ended set (reads
 * go on; the first write is refused with ERR_REFUSED); a new agent named
 * "<kind>-<the first 8 letters and digits of the session>" bound to it,
 * with 16, 32, then 56 when an agent of any other session (or none) ever
 * had that name, so distinct sessions never share a name; for
 * claim->client_shell, the live agent of that client whose process is an
 * ancestor of this one, else ERR_REFUSED (a command run by an agent client
 * is never the human's); else the human. Only reads: an agent new to the
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
 * On a ledger the caller may only read (ledger_read_only()) it does nothing
 * and succeeds: the caller stays unregistered (id 0).
 */
int agent_heartbeat(struct ledger *ledger, struct agent *agent, struct err *err);

/*
 * Register the agent name (or take over the live one of that name) with
 * kind, role and pid: the process whose death frees its claims (0: none).
 * Fills *id.
 */
int agent_start(struct ledger *ledger, const char *name, const char *kind,
    const char *role, int64_t pid, int64_t *id, struct err *err);

/*
 * End agent id, unless it holds a claim: then it stays live, so that
 * agent_reap_dead() in a later run, once its process is gone, stops what
 * still runs as it and reopens the claim (ended, the claim would wait out
 * its lease). *ended says whether it was ended now.
 */
int agent_end_if_idle(struct ledger *ledger, int64_t id, bool *ended,
    struct err *err);

/*
 * Heartbeat for count agents at once (a runner beating for its workers).
 * tasks (NULL, or count entries): the task each agent is working on now,
 * whose claim the beat renews as a command naming it would (a runner
 * knows its worker lives), or 0.
 */
int agent_beat(struct ledger *ledger, const int64_t *ids,
    const int64_t *tasks, size_t count,
    struct err *err);

/*
 * Live agents of this host whose recorded process is gone (a runner killed
 * with kill -9): their running leases expire now, so their tasks can be
 * taken at once, and they are ended. *reopened counts the claims freed.
 */
int agent_reap_dead(struct ledger *ledger, int64_t actor, int64_t *reopened,
    struct err *err);

void agent_release(struct agent *agent);

/*
 * An agent unseen this long (and not waiting) is stale. A person (kind
 * human) never is: they are not a process that can die silently, and
 * are seen when they act; their claims still end with their leases.
 */
#define AGENT_STALE_AFTER_MS (10 * 60 * 1000)

/* How fresh a heartbeat keeps an agent's last-seen time: within this, a
 * command by an active agent does not rewrite it. */
#define AGENT_SEEN_RESOLUTION_MS 1000

/* What 'daicho agent start' asks for. */
struct agent_start_request {
	const char *name;       /* required */
	const char *role;       /* or NULL: keep / none */
	const char *kind;       /* claude, codex, gemini, script or human */
	const char *session_id; /* the caller's client session, or NULL */
	int64_t stale_after_ms; /* a holder unseen this long may be taken over */
	bool as_self;           /* the caller already acts as name (--as or
				   DAICHO_AGENT, no session): it is no rival */
};

/* What agent_register() did. */
struct agent_started {
	int64_t id;            /* the agent now holding the name */
	int64_t replaced;      /* the stale holder taken over, or 0 */
	bool again;            /* the caller's session already held the name */
	bool renamed;          /* the caller's session agent took the name */
};

/*
 * Register the caller as request->name, in one transaction. A name is held
 * by one live agent at a time: when a live agent holds it, the start is the
 * same session again (role and kind updated), or a take-over when that
 * holder is stale (unseen for stale_after_ms and not waiting, or its
 * recorded process is gone) which ends it and is logged; otherwise
 * ERR_CONFLICT naming the holder and when it was last seen. A session that
 * already has an agent under another name renames it (its claims and waits
 * stay with it); else a new agent is bound to the session.
 */
int agent_register(struct ledger *ledger, const struct agent_start_request *request,
    struct agent_started *out, struct err *err);

/*
 * End the live agent called name (ERR_NOT_FOUND when none), or the caller
 * when name is NULL. *id is the agent ended.
 */
int agent_end_named(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err);

/*
 * Agents as a JSON array (new reference in *out), by name: the live ones,
 * or every one with all. Each object: id, name, role, kind, state (active,
 * waiting, stale or ended; an active agent unseen for stale_after_ms shows
 * as stale before the sweep marks it), session_id, pid, host, started_ms,
 * last_seen_ms, ended_ms, claims (task ids held), unread (messages), and
 * waits (open: id, what, owner, started_ms, remind_ms).
 */
int agent_list(struct ledger *ledger, bool all, int64_t stale_after_ms,
    json_t **out, struct err *err);

/*
 * The sweep's part: mark stale every active agent unseen for
 * stale_after_ms (a waiting agent is never stale) and expire the leases it
 * holds, so the claims can be taken. *marked counts the agents.
 */
int agent_mark_stale(struct ledger *ledger, int64_t actor, int64_t stale_after_ms,
    int64_t *marked, struct err *err);

/*
 * The tasks agent holds claimed (new reference in *out): [{id, title}] in
 * id order.
 */
int agent_held_claims(struct ledger *ledger, int64_t agent, json_t **out,
    struct err *err);

/*
 * The agent a name addresses: the live one, else the most recent of that
 * name. Fills *id (0 when no agent ever had the name).
 */
int agent_find_named(struct ledger *ledger, const char *name, int64_t *id,
    struct err *err);

#endif
