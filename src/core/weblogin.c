/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* The dashboard's logins in the ledger (core/weblogin.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/event.h"
#include "core/settings.h"
#include "core/weblogin.h"
#include "util/buf.h"
#include "util/clock.h"

#define KEY_SERVER "web-server"
#define KEY_LOGIN "web-login"
#define KEY_REVOKED "web-revoked-ms"

/*
 * In a write transaction by the caller: store value under key (NULL:
 * delete it), and append event kind (NULL: none) with detail (stolen).
 */
static int
store(struct ledger *ledger, const char *key, const char *value,
    const char *kind, json_t *detail, struct err *err)
{
	int64_t actor = 0;
	int rc;

	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0) {
		json_decref(detail);
		return rc;
	}
	rc = settings_store(ledger, actor, key, value, err);
	if (rc == 0 && kind != NULL)
		rc = event_append(ledger, actor, kind, 0, detail, err);
	else
		json_decref(detail);
	if (rc < 0) {
		ledger_rollback(ledger);
		return rc;
	}
	return ledger_commit(ledger, err);
}

int
weblogin_register(struct ledger *ledger, const char *origin,
    const char *host, int64_t pid, struct err *err)
{
	json_t *server = json_pack("{s:s, s:s, s:I}", "origin", origin, "host",
	    host, "pid", (json_int_t)pid);
	char *text = json_dumps(server, JSON_COMPACT);
	int rc = store(ledger, KEY_SERVER, text, NULL, NULL, err);

	free(text);
	json_decref(server);
	return rc;
}

int
weblogin_server(struct ledger *ledger, json_t **out, struct err *err)
{
	struct buf value = BUF_INIT;
	bool found;
	int rc = settings_read(ledger, KEY_SERVER, &value, &found, err);

	*out = NULL;
	if (rc == 0 && found) {
		*out = json_loads(value.buf, 0, NULL);
		if (!json_is_object(*out) || !json_is_string(json_object_get(*out,
		    "origin"))) {
			json_decref(*out);
			*out = NULL;
		}
	}
	buf_release(&value);
	return rc;
}

int
weblogin_unregister(struct ledger *ledger, const char *host, int64_t pid,
    struct err *err)
{
	json_t *server = NULL;
	int rc = weblogin_server(ledger, &server, err);

	if (rc == 0 && server != NULL &&
	    json_integer_value(json_object_get(server, "pid")) == pid &&
	    strcmp(json_string_value(json_object_get(server, "host")) ?
	    json_string_value(json_object_get(server, "host")) : "", host) == 0)
		rc = store(ledger, KEY_SERVER, NULL, NULL, NULL, err);
	json_decref(server);
	return rc;
}

int
weblogin_issue(struct ledger *ledger, const char *token_sha256,
    int64_t expires_ms, struct err *err)
{
	struct buf value = BUF_INIT;
	int rc;

	buf_addf(&value, "%s %" PRId64, token_sha256, expires_ms);
	rc = store(ledger, KEY_LOGIN, value.buf, "web-login",
	    json_pack("{s:I}", "expires_ms", (json_int_t)expires_ms), err);
	buf_release(&value);
	return rc;
}

/* Whether the kept link value is token_sha256's, unexpired. */
static bool
link_matches(const struct buf *value, const char *token_sha256)
{
	size_t hash_len = strlen(token_sha256);

	return hash_len > 0 && strncmp(value->buf, token_sha256, hash_len) == 0 &&
	    value->buf[hash_len] == ' ' &&
	    strtoll(value->buf + hash_len + 1, NULL, 10) > clock_now_ms();
}

int
weblogin_take(struct ledger *ledger, const char *token_sha256, bool *taken,
    struct err *err)
{
	struct buf value = BUF_INIT;
	int64_t actor = 0;
	bool found;
	int rc;

	*taken = false;
	/*
	 * A read first: a wrong token, which anyone who reaches the port may
	 * send, takes no write lock.
	 */
	if ((rc = settings_read(ledger, KEY_LOGIN, &value, &found, err)) < 0 ||
	    !found || !link_matches(&value, token_sha256))
		goto done;
	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		goto done;
	/* Again under the lock: two browsers may bring it at once. */
	if ((rc = settings_read(ledger, KEY_LOGIN, &value, &found, err)) < 0)
		goto fail;
	if (found && link_matches(&value, token_sha256)) {
		if ((rc = settings_store(ledger, actor, KEY_LOGIN, NULL,
			 err)) < 0)
			goto fail;
		*taken = true;
	}
	rc = ledger_commit(ledger, err);
	goto done;
fail:
	ledger_rollback(ledger);
done:
	buf_release(&value);
	return rc;
}

int
weblogin_revoke(struct ledger *ledger, int64_t *revoked_ms, struct err *err)
{
	struct buf value = BUF_INIT;
	int64_t actor = 0;
	int rc;

	if ((rc = ledger_begin_as(ledger, &actor, err)) < 0)
		goto done;
	/* The time under the lock: a login that waited for it is before. */
	*revoked_ms = clock_now_ms();
	buf_addf(&value, "%" PRId64, *revoked_ms);
	rc = settings_store(ledger, actor, KEY_REVOKED, value.buf, err);
	if (rc == 0)
		rc = settings_store(ledger, actor, KEY_LOGIN, NULL, err);
	if (rc == 0)
		rc = event_append(ledger, actor, "web-revoke", 0, NULL, err);
	if (rc < 0)
		ledger_rollback(ledger);
	else
		rc = ledger_commit(ledger, err);
done:
	buf_release(&value);
	return rc;
}

int
weblogin_revoked_ms(struct ledger *ledger, int64_t *ms, struct err *err)
{
	struct buf value = BUF_INIT;
	bool found;
	int rc = settings_read(ledger, KEY_REVOKED, &value, &found, err);

	*ms = rc == 0 && found ? strtoll(value.buf, NULL, 10) : 0;
	buf_release(&value);
	return rc;
}
