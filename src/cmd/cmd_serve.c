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

#include "cmd/cmd.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/path.h"

/* The server's entry, defined only in daicho-serve (src/serve/serve.c). */
int serve_run(struct cmd_ctx *ctx) __attribute__((weak));

static int
exec_serve(struct cmd_ctx *ctx)
{
	struct buf server = BUF_INIT;
	char **argv, **names;
	size_t n = 0;

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
			argv[n++] = (char *)ctx->values[i].value;
	}
	/*
	 * The caller's name goes along: daicho-serve runs the human check
	 * itself, and "--as w1" must fail it there as it fails 'daicho
	 * approve' (the session variables and $DAICHO_AGENT are inherited).
	 */
	if (ctx->claim.name != NULL) {
		argv[n++] = "--as";
		argv[n++] = (char *)ctx->claim.name;
	}
	fflush(stdout);
	ledger_close(ctx->ledger);
	ctx->ledger = NULL;
	execv(argv[0], argv);
	err_set(ctx->err, ERR_FAILED, "cannot run %s (%s; build it with "
	    "'make daicho-serve' and install it next to daicho with 'make "
	    "install')", argv[0], strerror(errno));
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
		 "[--insecure]",
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
	    "An address other than loopback needs --tls-cert and --tls-key (PEM)\n"
	    "or an explicit --insecure. See docs/security.md. Runs until\n"
	    "interrupted. The server is the program daicho-serve, installed next\n"
	    "to daicho.\n",
	.options = (const struct cmd_option[]){
	    { "listen", 'l', "ADDR:PORT", "where to listen (127.0.0.1:7070)" },
	    { "tls-cert", 0, "FILE", "serve HTTPS with this certificate (PEM)" },
	    { "tls-key", 0, "FILE", "the certificate's private key (PEM)" },
	    { "insecure", 0, NULL, "allow plain HTTP on a non-loopback address" },
	    { 0 } },
	.flags = CMD_NEEDS_LEDGER,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_serve,
};
