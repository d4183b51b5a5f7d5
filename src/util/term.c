/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "util/term.h"

#include <sys/ioctl.h>
#include <unistd.h>

int
term_size(int fd, int *rows, int *columns)
{
	struct winsize size;

	if (ioctl(fd, TIOCGWINSZ, &size) < 0 || size.ws_row == 0 ||
	    size.ws_col == 0)
		return -1;
	*rows = size.ws_row;
	*columns = size.ws_col;
	return 0;
}

int
term_keys_begin(struct term_keys *keys, int fd)
{
	struct termios mode;

	keys->fd = -1;
	if (!isatty(fd) || tcgetattr(fd, &keys->saved) < 0)
		return -1;
	mode = keys->saved;
	mode.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	mode.c_cc[VMIN] = 1;
	mode.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &mode) < 0)
		return -1;
	keys->fd = fd;
	return 0;
}

void
term_keys_end(struct term_keys *keys)
{
	if (keys->fd >= 0)
		tcsetattr(keys->fd, TCSANOW, &keys->saved);
	keys->fd = -1;
}
