/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for util/toml: any bytes read as a configuration file
 * (Codex's config.toml). Must never crash, and every value it reports has
 * at least one key.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
value(const struct strlist *keys, const char *text, bool is_bool, void *arg)
{
	(void)text;
	(void)is_bool;
	(void)arg;
	if (keys->count == 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	toml_each_value((const char *)data, size, value, NULL);
	return 0;
}
