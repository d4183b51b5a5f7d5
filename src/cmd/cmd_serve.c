/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * daicho serve: the web dashboard. The server itself is a program of its
 * own, daicho-serve (src/serve/), installed next to daicho: it links
 * libmicrohttpd and Graphviz's libgvc, which loads its layout and render
 * plugins with dlopen and so cannot live in the static daicho that every
 * short-lived command starts. daicho-serve is daicho's own dispatcher
 * linked with the server, which defines serve_run(): in daicho that weak
 * symbol is unresolved, and this command hands over to daicho-serve.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <signal.h>

#include "cmd/cmd.h"
#include "cmd/cmd_serve.h"
#include "core/weblogin.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/path.h"
#include "util/random.h"
#include "util/sha256.h"

/* The server's entry, defined only in daicho-serve (src/serve/serve.c). */
int serve_run(struct cmd_ctx *ctx) __attribute__((weak));

/* How long a link of --login-url is good for, unused. */
#define LOGIN_LINK_TTL_MS (10 * 60 * 1000LL)

/*
 * serve --login-url: a fresh one-time link to the dashboard running on
 * this ledger, for a person at a terminal (cmd/person.c checked). It is kept in the ledger as its
 * SHA-256 (core/weblogin.h), so the URL printed here is the only copy.
 */
static int
print_login_url(struct cmd_ctx *ctx)
{
	char token[65], hash[SHA256_HEX_BYTES];
	json_t *server = NULL;
	const char *host;
	char here[256] = "";
	int64_t pid, expires = clock_now_ms() + LOGIN_LINK_TTL_MS;
	struct buf url = BUF_INIT;
	int rc;

	if ((rc = weblogin_server(ctx->ledger, &server, ctx->err)) < 0)
		return rc;
	gethostname(here, sizeof(here) - 1);
	host = server ? json_string_value(json_object_get(server, "host")) : NULL;
	pid = server ? json_integer_value(json_object_get(server, "pid")) : 0;
	/* A dashboard of this machine that is gone is as none. */
	if (server != NULL && host != NULL && strcmp(host, here) == 0 &&
	    pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
		json_decref(server);
		server = NULL;
	}
	if (server == NULL)
		return err_set(ctx->err, ERR_NOT_FOUND, "no dashboard that a "
		    "person started is running on this ledger (start one at your "
		    "terminal with 'daicho serve')");
	if (random_hex(token, 32) < 0) {
		json_decref(server);
		return err_set(ctx->err, ERR_FAILED, "no random bytes for a "
		    "login link");
	}
	sha256_hex(token, strlen(token), hash);
	if ((rc = weblogin_issue(ctx->ledger, hash, expires, ctx->err)) < 0) {
		json_decref(server);
		return rc;
	}
	buf_addf(&url, "%s/login?token=%s", json_string_value(json_object_get(
	    server, "origin")), token);
	json_decref(server);
	if (ctx->json)
		rc = cmd_print_json(ctx, json_pack("{s:s, s:I}", "url", url.buf,
		    "expires_ms", (json_int_t)expires));
	else
		printf("%s\n", url.buf);
	buf_release(&url);
	return rc;
}

/*
 * serve --revoke: every browser logged in to a dashboard of this ledger
 * is logged out, and an unused --login-url link dies; a person's
 * (cmd/person.c checked).
 */
static int
revoke_sessions(struct cmd_ctx *ctx)
{
	int64_t at = 0;
	int rc;

	if ((rc = weblogin_revoke(ctx->ledger, &at, ctx->err)) < 0)
		return rc;
	if (ctx->json)
		return cmd_print_json(ctx, json_pack("{s:I}", "revoked_ms",
		    (json_int_t)at));
	cmd_say(ctx, "every dashboard session ended: browsers log in again "
	    "with a link of 'daicho serve --login-url'");
	return 0;
}

static int
exec_serve(struct cmd_ctx *ctx)
{
	struct buf server = BUF_INIT;
	const char **argv;
	char **names;
	size_t n = 0;

	if (cmd_has(ctx, OPT_LOGIN_URL) + cmd_has(ctx, OPT_REVOKE) +
	    (cmd_has(ctx, OPT_LISTEN) || cmd_has(ctx, OPT_TLS_CERT) ||
	    cmd_has(ctx, OPT_TLS_KEY) || cmd_has(ctx, OPT_INSECURE) ||
	    cmd_has(ctx, OPT_SESSION_TTL)) > 1)
		return err_set(ctx->err, ERR_USAGE, "--login-url and --revoke go "
		    "alone (they speak to the dashboard already running)");
	if (cmd_has(ctx, OPT_LOGIN_URL))
		return print_login_url(ctx);
	if (cmd_has(ctx, OPT_REVOKE))
		return revoke_sessions(ctx);
	if (serve_run != NULL)
		return serve_run(ctx);
	/*
	 * daicho-serve --ledger PATH serve OPTIONS [--as NAME]: the same
	 * command there.
	 */
	argv = xcalloc(7 + 2 * ctx->value_count, sizeof(*argv));
	names = xcalloc(ctx->value_count + 1, sizeof(*names));
	path_add_sibling_program(&server, "daicho-serve", "DAICHO_SERVE_BIN");
	argv[n++] = server.buf;
	argv[n++] = "--ledger";
	argv[n++] = ctx->ledger_path.buf;
	argv[n++] = "serve";
	for (size_t i = 0; i < ctx->value_count; i++) {
		struct buf option = BUF_INIT;

		buf_addf(&option, "--%s", ctx->values[i].option->name);
		names[i] = buf_detach(&option, NULL);
		argv[n++] = names[i];
		if (ctx->values[i].value != NULL)
			argv[n++] = ctx->values[i].value;
	}
	/*
	 * The caller's name goes along: daicho-serve runs the human check
	 * itself, and "--as w1" must fail it there as it fails 'daicho
	 * approve' (the session variables and $DAICHO_AGENT are inherited).
	 */
	if (ctx->claim.name != NULL) {
		argv[n++] = "--as";
		argv[n++] = ctx->claim.name;
	}
	fflush(stdout);
	ledger_close(ctx->ledger);
	ctx->ledger = NULL;
	/* execv() takes char *const[] but does not write to it. */
	execv(argv[0], (char *const *)argv);
	err_set(ctx->err, ERR_FAILED, "cannot run %s (%s; build it with "
	    "'make daicho-serve' and install it with 'make install', which "
	    "puts it in libexec/daicho)", argv[0], strerror(errno));
	for (size_t i = 0; i < ctx->value_count; i++)
		free(names[i]);
	free(names);
	buf_release(&server);
	free(argv);
	return -ERR_FAILED;
}

const struct cmd_entry cmd_serve_entry = {
	.name = "serve",
	.usage = "serve [--listen ADDR:PORT] [--tls-cert FILE --tls-key FILE] "
		 "[--insecure] [--session-ttl DUR]\n"
		 "       daicho serve --login-url | --revoke",
	.summary = "the web dashboard: needs you first, live",
	.help =
	    "Serves the dashboard over HTTP, by default on 127.0.0.1:7070, and\n"
	    "prints its URL (PORT 0: any free port). Pages: Needs you (every item\n"
	    "of 'daicho status', each with the action that resolves it), Agents,\n"
	    "Tasks (and a page per task: body, checks, verdicts with evidence,\n"
	    "saves, log tail, history), Graph (the dependency DAG, verified\n"
	    "subgraphs collapsed) and Usage. Pages update in place within a\n"
	    "second of a change (Server-Sent Events) and work without\n"
	    "JavaScript, only without live updates. A JSON API under /api/ gives\n"
	    "what the commands' --json give (docs/api.md).\n\n"
	    "Actions (approve, deny, reopen, unblock, release --force) are for\n"
	    "the person who started the server at a terminal (as for 'daicho\n"
	    "approve'): it prints a one-time login URL to that terminal; the\n"
	    "browser that opens it gets a session cookie, and every action needs\n"
	    "it and the page's CSRF token (else 401 or 403). Actions are recorded\n"
	    "as that person's, with via \"web\" in their events. Started by an\n"
	    "agent, or with no terminal, the dashboard is read-only.\n\n"
	    "A login lasts --session-ttl (12h; 1m to 90d), across browser\n"
	    "restarts: the cookie is kept that long. While the dashboard runs, a\n"
	    "person at a terminal (any terminal: the ledger carries it) runs\n"
	    "'daicho serve --login-url' for a fresh link for another browser\n"
	    "(good once, for 10 minutes; a newer one replaces it), and 'daicho\n"
	    "serve --revoke' to log every browser out (links unused die too).\n"
	    "Both are a person's (exit 6 for an agent); with no dashboard of a\n"
	    "person's running, --login-url is exit 3. JSON: --login-url {url,\n"
	    "expires_ms}; --revoke {revoked_ms}.\n\n"
	    "An address other than loopback needs --tls-cert and --tls-key (PEM)\n"
	    "or an explicit --insecure. See docs/security.md. Runs until\n"
	    "interrupted. The server is the program daicho-serve, installed next\n"
	    "to daicho.\n",
	CMD_OPTIONS(OPTION_COUNT,
	    [OPT_LISTEN] = { "listen", 'l', "ADDR:PORT",
		"where to listen (127.0.0.1:7070)" },
	    [OPT_TLS_CERT] = { "tls-cert", 0, "FILE",
		"serve HTTPS with this certificate (PEM)" },
	    [OPT_TLS_KEY] = { "tls-key", 0, "FILE",
		"the certificate's private key (PEM)" },
	    [OPT_INSECURE] = { "insecure", 0, NULL,
		"allow plain HTTP on a non-loopback address" },
	    [OPT_SESSION_TTL] = { "session-ttl", 0, "DUR",
		"how long a browser's login lasts (12h)" },
	    [OPT_LOGIN_URL] = { "login-url", 0, NULL,
		"print a fresh login link for the running dashboard" },
	    [OPT_REVOKE] = { "revoke", 0, NULL,
		"log every browser out of the dashboard" }),
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_serve,
};
