/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The option ids of the 'serve' command (cmd/cmd_serve.c), which the
 * server that runs it in daicho-serve (serve/serve.c) reads too: the only
 * family whose ids leave its file, since its exec is split between the
 * two programs.
 */
#ifndef DAICHO_CMD_SERVE_H
#define DAICHO_CMD_SERVE_H

#include "cmd/cmd.h"

/* The ids of the options of 'serve' (CMD_OPTIONS()). */
enum serve_option {
	OPT_LISTEN,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_INSECURE,
	OPT_SESSION_TTL,
	OPT_LOGIN_URL,
	OPT_REVOKE,
	OPTION_COUNT
};

#endif
