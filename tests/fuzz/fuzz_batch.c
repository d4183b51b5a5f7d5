/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for cmd/batch: the JSONL that `add --batch` reads,
 * which agents and scripts write. Parsing must never crash or leak, and a
 * batch that parses has at least one task and a title for every task.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct batch batch = BATCH_INIT;
	struct err err = ERR_INIT;
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* as in the struct buf add --batch reads into */
	if (batch_parse(text, size, &batch, &err) == 0) {
		if (batch.count == 0)
			abort();
		for (size_t i = 0; i < batch.count; i++)
			if (batch.specs[i].title == NULL || batch.specs[i].line == 0)
				abort();
	} else if (err.message.len == 0 || err.code != ERR_USAGE) {
		abort(); /* every refusal is a usage error that says why */
	}
	batch_release(&batch);
	err_release(&err);
	free(text);
	return 0;
}
