/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for util/cmdline: any bytes as a shell command line (as a
 * Bash tool sends it), as a gate pattern, and as the string of "sh -c".
 * Splitting, unwrapping, matching and fingerprinting must never crash, leak
 * or read out of bounds (run under ASan and UBSan by 'make fuzz').
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char *argv[] = { "sh", "-c", text, NULL };
	struct cmdline line = CMDLINE_INIT, from_argv = CMDLINE_INIT;
	struct strlist pattern = STRLIST_INIT;
	struct buf why = BUF_INIT, fingerprint = BUF_INIT, quoted = BUF_INIT;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	cmdline_parse(text, &line, &why);
	cmdline_fingerprint(&line, "/repo", &fingerprint);
	cmdline_from_argv(argv, 3, &from_argv);
	buf_reset(&why);
	if (cmdline_pattern_check(text, &pattern, &why) == 0) {
		(void)cmdline_matches(&pattern, &line);
		(void)cmdline_matches(&pattern, &from_argv);
	}
	cmdline_quote_word(&quoted, text);
	cmdline_release(&line);
	cmdline_release(&from_argv);
	strlist_release(&pattern);
	buf_release(&why);
	buf_release(&fingerprint);
	buf_release(&quoted);
	free(text);
	return 0;
}
