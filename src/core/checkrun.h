/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * How a check's command runs: in a sandbox (util/sandbox.h) unless a
 * person turned that off ('daicho config sandbox off'). The policy is read
 * once a pass (a sweep's verification, a landing pass) and holds:
 *
 *  - whether checks run sandboxed; when the sandbox is on but cannot be
 *    made on this machine (found out at the first command), no command
 *    runs at all (the caller defers, never falls back);
 *  - what a check never sees: the project's main work tree, the ledger's
 *    directory and the person's home directory (all hidden; the check's
 *    own checkout is bound back, writable).
 *
 * A check asking for the network (a task's --check-needs net, which only
 * a person sets) gets the host's network; every other check a loopback of
 * its own.
 */
#ifndef DAICHO_CHECKRUN_H
#define DAICHO_CHECKRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"
#include "util/buf.h"
#include "util/proc.h"
#include "util/strlist.h"
#include "util/trace.h"

struct check_policy {
	bool unsandboxed;        /* the "sandbox" setting is off */
	struct strlist hidden;   /* what checks never see */
};

#define CHECK_POLICY_INIT { false, STRLIST_INIT }

/*
 * Read the policy of ledger into p (CHECK_POLICY_INIT first). Returns 0,
 * or the ledger's error.
 */
int check_policy_read(struct ledger *ledger, struct check_policy *p,
    struct err *err);

void check_policy_release(struct check_policy *p);

/* "sandbox" or "off": how p runs checks, for the verdict's record. */
const char *check_policy_name(const struct check_policy *p);

/*
 * Run command through /bin/sh in dir under p (NULL: unsandboxed, for a
 * caller that has no ledger), with env (NAME=VALUE, NULL-ended; may be
 * NULL), killed with all it started after timeout_ms, the output's last
 * tail bytes kept: proc_run_shell()'s contract. network: the host's
 * network. trace (TRACE_PATHS_INIT, or NULL): the command runs under
 * strace, and trace gets what it did to the paths of dir (util/trace.h).
 * Returns 0 with *out filled; 1 (err set, ERR_FAILED: why, in one line
 * that says what to do) when the sandbox cannot be made, or a trace was
 * asked for and strace cannot trace here, and nothing ran; or -1 with
 * errno when the command could not be started.
 */
int check_policy_run(const struct check_policy *p, const char *dir,
    const char *command, const char *const env[], bool network,
    int64_t timeout_ms, size_t tail, struct trace_paths *trace,
    struct proc_result *out, struct err *err);

#endif
