/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * daicho-serve's 'serve' command: check where to listen and who started
 * it, then run the dashboard until interrupted. Reached through the
 * command table like any command (cmd/cmd_serve.c); in daicho-serve this
 * strong serve_run() replaces the weak one that makes daicho hand over.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_serve.h"
#include "serve/serve.h"
#include "util/alloc.h"
#include "util/duration.h"

#define DEFAULT_LISTEN "127.0.0.1:7070"

int serve_run(struct cmd_ctx *ctx);

/*
 * Split "ADDR:PORT" or "[V6ADDR]:PORT" into address (owned by out) and
 * port. Returns 0 or ERR_USAGE.
 */
static int
parse_listen(struct cmd_ctx *ctx, const char *text, struct buf *address,
    int *port)
{
	const char *colon = strrchr(text, ':');
	char *end;
	long n;

	if (colon == NULL || colon == text)
		goto bad;
	n = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || n < 0 || n > 65535)
		goto bad;
	*port = (int)n;
	if (text[0] == '[') {
		if (colon[-1] != ']' || colon - text < 3)
			goto bad;
		buf_add(address, text + 1, (size_t)(colon - text - 2));
	} else {
		buf_add(address, text, (size_t)(colon - text));
	}
	if (strcmp(address->buf, "localhost") == 0) {
		buf_reset(address);
		buf_adds(address, "127.0.0.1");
	}
	return 0;
bad:
	return err_set(ctx->err, ERR_USAGE, "bad --listen '%s' (give ADDR:PORT, "
	    "e.g. 127.0.0.1:7070 or [::1]:7070)", text);
}

/* Whether address (numeric) is a loopback one: 127.0.0.0/8 or ::1. */
static bool
is_loopback(const char *address)
{
	struct in_addr v4;
	struct in6_addr v6;

	if (inet_pton(AF_INET, address, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, address, &v6) == 1)
		return memcmp(&v6, &in6addr_loopback, sizeof(v6)) == 0;
	return false;
}

/*
 * --session-ttl DUR into *ms: how long a browser stays logged in, from a
 * minute to 90 days. Returns 0 or ERR_USAGE.
 */
static int
serve_session_ttl(struct cmd_ctx *ctx, int64_t *ms)
{
	const char *text = cmd_opt(ctx, OPT_SESSION_TTL);

	if (duration_parse(text, ms) < 0 || *ms < 60 * 1000LL ||
	    *ms > 90 * 24 * 3600 * 1000LL)
		return err_set(ctx->err, ERR_USAGE, "bad --session-ttl '%s' "
		    "(give a duration from 1m to 90d, e.g. 12h or 7d)", text);
	return 0;
}

int
serve_run(struct cmd_ctx *ctx)
{
	const char *listen = cmd_opt(ctx, OPT_LISTEN);
	const char *cert = cmd_opt(ctx, OPT_TLS_CERT);
	const char *key = cmd_opt(ctx, OPT_TLS_KEY);
	struct serve server = { 0 };
	struct buf address = BUF_INIT;
	struct err why = ERR_INIT;
	json_t *checked = NULL;
	int64_t ttl_ms = SERVE_SESSION_TTL_MS;
	int port = 0, rc;

	if ((rc = parse_listen(ctx, listen ? listen : DEFAULT_LISTEN, &address,
		 &port)) < 0)
		goto done;
	if (cmd_has(ctx, OPT_SESSION_TTL) && (rc = serve_session_ttl(ctx,
	    &ttl_ms)) < 0)
		goto done;
	if ((cert == NULL) != (key == NULL)) {
		rc = err_set(ctx->err, ERR_USAGE, "--tls-cert and --tls-key go "
		    "together");
		goto done;
	}
	server.loopback = is_loopback(address.buf);
	server.tls = cert != NULL;
	if (!server.loopback && !server.tls && !cmd_has(ctx, OPT_INSECURE)) {
		rc = err_set(ctx->err, ERR_USAGE, "refusing to serve plain HTTP on "
		    "%s, which is not a loopback address (give --tls-cert FILE and "
		    "--tls-key FILE, or --insecure if the network is yours alone; "
		    "see docs/security.md)", address.buf);
		goto done;
	}
	/*
	 * Actions are for the person at this terminal, proven as 'daicho
	 * approve' proves one; anyone else gets a read-only dashboard.
	 */
	{
		struct cmd_ctx probe = *ctx;

		probe.err = &why;
		probe.person_checked = NULL;
		if (cmd_require_human(&probe, "act from the dashboard",
			&checked) < 0) {
			fprintf(stderr, "daicho: the dashboard is read-only: %s\n",
			    why.message.buf);
			checked = NULL;
		}
		json_decref(probe.person_checked);
	}
	if (checked != NULL)
		json_object_set_new(checked, "via", json_string("web: the login "
		    "URL printed to the terminal that started 'daicho serve'"));
	server.ledger = ctx->ledger;
	server.start = ctx;
	server.human_name = ctx->claim.human_name;
	server.proof_checked = checked;
	server.graph_event_id = -1;
	pthread_mutex_init(&server.lock, NULL);
	pthread_mutex_init(&server.graph_lock, NULL);
	buf_init(&server.origin);
	buf_init(&server.session_host);
	buf_init(&server.host);
	buf_init(&server.graph_svg);
	serve_auth_init(&server.auth, checked != NULL, ttl_ms);
	rc = serve_http_run(&server, address.buf, port, cert, key, ctx->err);
	serve_auth_release(&server.auth);
	pthread_mutex_destroy(&server.lock);
	pthread_mutex_destroy(&server.graph_lock);
	buf_release(&server.origin);
	buf_release(&server.session_host);
	buf_release(&server.host);
	buf_release(&server.graph_svg);
done:
	json_decref(checked);
	buf_release(&address);
	err_release(&why);
	return rc;
}
