/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/* daicho's version, as --version prints it. */
#ifndef DAICHO_VERSION_H
#define DAICHO_VERSION_H

#define DAICHO_VERSION "0.1.0"

#endif
