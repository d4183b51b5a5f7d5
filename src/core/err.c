/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "core/err.h"

#include <stdarg.h>
#include <string.h>

#include "util/utf8.h"

int
err_set(struct err *err, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	buf_reset(&err->message);
	va_start(ap, fmt);
	buf_vaddf(&err->message, fmt, ap);
	va_end(ap);
	return -(int)code;
}

void
err_release(struct err *err)
{
	buf_release(&err->message);
	err->code = ERR_OK;
}

/* Replace in text every whole occurrence of input (when long) by its cut. */
static void
cut_echo(struct buf *text, const char *input)
{
	size_t n = strlen(input), keep;
	struct buf shown = BUF_INIT, out = BUF_INIT;
	const char *at, *from;

	if (n <= ERR_SHOWN_MAX || strstr(text->buf, input) == NULL)
		return;
	keep = utf8_fit(input, n, ERR_SHOWN_MAX / 2, NULL);
	buf_add(&shown, input, keep);
	buf_addf(&shown, "... (%zu bytes)", n);
	for (from = text->buf; (at = strstr(from, input)) != NULL; from = at + n) {
		buf_add(&out, from, (size_t)(at - from));
		buf_add(&out, shown.buf, shown.len);
	}
	buf_adds(&out, from);
	buf_reset(text);
	buf_add(text, out.buf, out.len);
	buf_release(&shown);
	buf_release(&out);
}

void
err_line(const struct err *err, char *const *inputs, size_t count,
    struct buf *out)
{
	struct buf text = BUF_INIT, line = BUF_INIT;
	size_t keep;

	buf_add(&text, err->message.buf ? err->message.buf : "",
	    err->message.len);
	for (size_t i = 0; i < count; i++) {
		const char *word = inputs[i], *value;

		if (word == NULL)
			continue;
		cut_echo(&text, word);
		if (strncmp(word, "--", 2) == 0 && (value = strchr(word, '=')))
			cut_echo(&text, value + 1);
		if (strncmp(word, "--", 2) == 0)
			cut_echo(&text, word + 2);
		if ((value = strchr(word, ':')) != NULL)
			cut_echo(&text, value + 1);
	}
	buf_add_oneline(&line, text.buf);
	keep = line.len;
	if (keep > ERR_LINE_MAX)
		keep = utf8_fit(line.buf, line.len, ERR_LINE_MAX - 3, NULL);
	buf_add(out, line.buf, keep);
	if (keep < line.len)
		buf_adds(out, "...");
	buf_release(&text);
	buf_release(&line);
}
