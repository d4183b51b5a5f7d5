/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Settings: defaults kept in the ledger itself, so every agent and every
 * worktree that shares the ledger sees the same. A flag on the command
 * line wins over a setting; a setting wins over daicho's built-in default.
 *
 * Keys:
 *   jobs      how many at once: run's workers, sweep's verifications
 *   lease     a duration: the lease of claims that give none
 *   max-hold  a duration: the maximum hold of claims that give none
 *             (core/task.h); default three leases
 *   protect   path globs no report may change, for every task (a task's
 *             own --touches exempt it from these; its --protect adds)
 *   stale-after  a duration: how long an agent may go unseen
 *   trunk     the branch reported work must be new against; default the
 *             branch HEAD of the main work tree names at the claim
 *   land      off, merge, rebase or squash: what landing does (core/land.h)
 *   land-batch   how many queued tasks landing takes at once
 *   land-check   a shell command run on every merged tree
 *   land-check-timeout  a duration: how long the land-check may run
 *   land-tries   send-backs of a landing before its task fails
 *   remote    the git remote verification fetches a reported commit from
 *             when the ledger's repository lacks it; "none": never fetch;
 *             default origin
 */
#ifndef DAICHO_SETTINGS_H
#define DAICHO_SETTINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"
#include "util/strlist.h"

struct db_stmt;

/*
 * Set key to values (as typed: one duration for max-hold, one or more
 * globs for protect), or unset it when values is NULL, in one transaction
 * with a "config" event (key, old and new value). ERR_USAGE for an unknown
 * key or a value that key cannot take, with nothing changed.
 */
int settings_set(struct ledger *ledger, int64_t actor, const char *key,
    const struct strlist *values, struct err *err);

/*
 * Every known key, or only key: *out receives a new JSON array of objects
 * {key, kind (duration, number, globs, branch), summary, set (bool), value
 * (ms for a duration, a number, an array of globs, a branch; null when
 * unset), default (text), set_ms, set_by}. ERR_USAGE
 * for an unknown key.
 */
int settings_show(struct ledger *ledger, const char *key, json_t **out,
    struct err *err);

/*
 * The ledger-wide protected globs (key "protect"), appended to out; none
 * when unset.
 */
int settings_protected(struct ledger *ledger, struct strlist *out,
    struct err *err);

/*
 * A number-valued setting (a duration in milliseconds, or a count) into
 * *value when it is set; *found says whether it is.
 */
int settings_number(struct ledger *ledger, const char *key, int64_t *value,
    bool *found, struct err *err);

/*
 * The stored text of count keys in one read: values[i] (reset first) and
 * found[i] for keys[i].
 */
int settings_values(struct ledger *ledger, const char *const *keys,
    size_t count, struct buf *values, bool *found, struct err *err);

/*
 * The read settings_values() makes, asked for ahead (db_step_ahead()) so
 * that it can travel with the next statement: the statement in *out, for
 * one settings_values_read(), and *ahead, whether it went ahead (when not,
 * read it at once: it would run alone anyway). Returns 0, or the mapped
 * error with *out NULL.
 */
int settings_read_ahead(struct ledger *ledger, struct db_stmt **out,
    bool *ahead, struct err *err);

/* settings_values() from st, the read settings_read_ahead() returned. */
int settings_values_read(struct ledger *ledger, struct db_stmt *st,
    const char *const *keys, size_t count, struct buf *values, bool *found,
    struct err *err);

/*
 * The stored text of key into value (reset first); *found says whether it
 * is set. Any key, known or one of daicho's own (core/weblogin.h).
 */
int settings_read(struct ledger *ledger, const char *key, struct buf *value,
    bool *found, struct err *err);

/*
 * Inside the caller's write transaction by actor: store value under key,
 * or delete key when value is NULL, as it is (no check, no event): for
 * daicho's own keys, which 'config' neither shows nor takes.
 */
int settings_store(struct ledger *ledger, int64_t actor, const char *key,
    const char *value, struct err *err);

/*
 * Whether a task whose verdict accepted a commit goes to the landing queue
 * rather than being done (*on): the ledger is in git and the "land"
 * setting is not "off" (core/land.h reads the rest of it). Inside the
 * caller's transaction. Returns 0 or the error.
 */
int settings_landing(struct ledger *ledger, bool *on, struct err *err);

/* Whether key names a setting whose value is a duration in milliseconds. */
bool settings_is_duration(const char *key);

/*
 * The "remote" setting into remote: the remote to fetch reported commits
 * from, "origin" when unset, empty when set to none.
 */
int settings_remote(struct ledger *ledger, struct buf *remote,
    struct err *err);

/*
 * Refuse (ERR_USAGE, naming what: a setting or an option) a name that
 * cannot be a git remote's ("none" aside): one git would read as an
 * option, or not a valid name under refs/remotes/. Returns 0 or the error.
 */
int settings_check_remote(const char *what, const char *name,
    struct err *err);

#endif
