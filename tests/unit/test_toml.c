/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/toml: the values of a Codex config.toml, with the
 * path of keys to each, through headers, dotted and quoted keys and inline
 * tables; what it does not read is skipped without losing what follows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "util/buf.h"
#include "util/toml.h"

/* Each value as "key|key|...=value" on a line of its own. */
static void
collect(const struct strlist *keys, const char *value, bool is_bool, void *arg)
{
	struct buf *out = arg;

	for (size_t i = 0; i < keys->count; i++)
		buf_addf(out, "%s%s", i ? "|" : "", keys->items[i]);
	buf_addf(out, "=%s%s\n", value, is_bool ? " (bool)" : "");
}

static void
expect(const char *doc, const char *want)
{
	struct buf got = BUF_INIT;

	toml_each_value(doc, strlen(doc), collect, &got);
	assert_string_equal(got.buf, want);
	buf_release(&got);
}

static void
test_codex_config(void **state)
{
	expect("model = \"gpt-5\"  # the model\n"
	       "approval_policy = 'never'\n"
	       "notify = [\"a\", \"b\"]\n"
	       "[projects.\"/work/my repo\"]\n"
	       "trust_level = \"trusted\"\n"
	       "\n"
	       "[hooks.state.\"/work/my repo/.codex/hooks.json:pre_tool_use:0:0\"]\n"
	       "enabled = true\n"
	       "trusted_hash = \"sha256:abc\"\n"
	       "[[mcp_servers.list]]\n"
	       "name = \"skipped\"\n"
	       "[projects]\n"
	       "\"/other\" = { trust_level = \"untrusted\", note = \"x\\\"y\" }\n"
	       "a.\"b.c\".d = false\n",
	    "model=gpt-5\n"
	    "approval_policy=never\n"
	    "projects|/work/my repo|trust_level=trusted\n"
	    "hooks|state|/work/my repo/.codex/hooks.json:pre_tool_use:0:0|enabled=true (bool)\n"
	    "hooks|state|/work/my repo/.codex/hooks.json:pre_tool_use:0:0|trusted_hash=sha256:abc\n"
	    "projects|/other|trust_level=untrusted\n"
	    "projects|/other|note=x\"y\n"
	    "projects|a|b.c|d=false (bool)\n");
}

static void
test_skips_what_it_cannot_read(void **state)
{
	expect("text = \"\"\"\n[not.a.table]\nx = \"inside\"\n\"\"\"\n"
	       "after = \"yes\"\n"
	       "broken = \"no end\n"
	       "n = 42\n"
	       "[ok]\n"
	       "k = 'v'\n",
	    "after=yes\n"
	    "ok|k=v\n");
	expect("", "");
	expect("[", "");
	expect("= \"x\"\n[a]b=\"c\"\n", "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codex_config),
		cmocka_unit_test(test_skips_what_it_cannot_read),
	};

	return cmocka_run_group_tests_name("toml", tests, NULL, NULL);
}
