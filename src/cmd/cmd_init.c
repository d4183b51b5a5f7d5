/* daicho init: create the ledger. */
#include <stdio.h>

#include "cmd/cmd.h"

static int
exec_init(struct cmd_ctx *ctx)
{
	int rc = ledger_create(ctx->ledger_path.buf, ctx->err);

	if (rc < 0)
		return rc;
	if (ctx->json) {
		return cmd_print_json(ctx, json_pack("{s:s, s:b}", "ledger",
		    ctx->ledger_path.buf, "created", rc == 0));
	}
	if (!ctx->quiet)
		printf("%s daicho ledger at %s\n",
		    rc == 0 ? "Created" : "Already have a", ctx->ledger_path.buf);
	return 0;
}

const struct cmd_entry cmd_init_entry = {
	.name = "init",
	.usage = "init",
	.summary = "create the ledger (harmless when it exists)",
	.help =
	    "Creates the ledger where daicho looks for it: --ledger PATH, else\n"
	    "$DAICHO_LEDGER, else <git common dir>/daicho/ledger.db inside a git\n"
	    "repository (so every worktree shares it), else .daicho/ledger.db in\n"
	    "the current directory. Running it on an existing ledger only brings\n"
	    "its schema up to date.\n\n"
	    "JSON: {\"ledger\": PATH, \"created\": BOOL}\n",
	.options = (const struct cmd_option[]){ { 0 } },
	.flags = 0,
	.min_args = 0,
	.max_args = 0,
	.exec = exec_init,
};
