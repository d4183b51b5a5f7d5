#include "core/err.h"

#include <stdarg.h>

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
