/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The dashboard's logins, kept in the ledger so that a person's command at
 * any terminal reaches the 'daicho serve' running on it: a fresh login link
 * ('daicho serve --login-url'), and every session ended ('daicho serve
 * --revoke'). They are settings rows of daicho's own, which 'config'
 * neither shows nor takes (core/settings.h), written only by a person: on
 * PostgreSQL the settings table is daicho_human's. A link is kept as the
 * SHA-256 of its token, so whoever reads the ledger cannot log in with it.
 *
 * Keys:
 *   web-server      the running dashboard: {origin, host, pid} (JSON)
 *   web-login       the one unused link: "SHA256HEX EXPIRES_MS"
 *   web-revoked-ms  sessions that began at or before it are ended
 */
#ifndef DAICHO_WEBLOGIN_H
#define DAICHO_WEBLOGIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/ledger.h"

/*
 * Record the dashboard that serves at origin, from process pid of host, in
 * one transaction by the caller: the one --login-url links point at.
 */
int weblogin_register(struct ledger *ledger, const char *origin,
    const char *host, int64_t pid, struct err *err);

/* Forget the recorded dashboard if it is process pid of host. */
int weblogin_unregister(struct ledger *ledger, const char *host, int64_t pid,
    struct err *err);

/*
 * The recorded dashboard into *out (new reference: {origin, host, pid}),
 * or NULL when none is.
 */
int weblogin_server(struct ledger *ledger, json_t **out, struct err *err);

/*
 * Keep the link whose token hashes to token_sha256 (64 hex digits) until
 * expires_ms, in place of any unused one, with a "web-login" event by the
 * caller, in one transaction.
 */
int weblogin_issue(struct ledger *ledger, const char *token_sha256,
    int64_t expires_ms, struct err *err);

/*
 * Take the kept link if its token hashes to token_sha256 and it has not
 * expired: *taken says whether it did (it is then gone), in one
 * transaction.
 */
int weblogin_take(struct ledger *ledger, const char *token_sha256,
    bool *taken, struct err *err);

/*
 * End every session that began until now, and any unused link, with a
 * "web-revoke" event by the caller, in one transaction: *revoked_ms is
 * the time recorded.
 */
int weblogin_revoke(struct ledger *ledger, int64_t *revoked_ms,
    struct err *err);

/* When sessions were last revoked into *ms (0: never). */
int weblogin_revoked_ms(struct ledger *ledger, int64_t *ms, struct err *err);

#endif
