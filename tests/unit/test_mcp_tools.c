/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit test of the MCP server's tool table (cmd/cmd_mcp.c) against the
 * command table: the tools' schemas are derived from the commands'
 * options, and what the tool table still says itself (options renamed,
 * described apart or left out, text read through an option) must name
 * options the command has, with roles and types that agree with them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "cmd/cmd.h"
#include "core/err.h"

/* Every tool names only its command's options, with agreeing types. */
static void
test_tools_agree_with_commands(void **state)
{
	struct err err = ERR_INIT;
	int rc = cmd_mcp_check_tools(&err);

	if (rc < 0)
		fprintf(stderr, "%s\n", err.message.buf);
	assert_int_equal(rc, 0);
	err_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tools_agree_with_commands),
	};

	return cmocka_run_group_tests_name("mcp_tools", tests, NULL, NULL);
}
