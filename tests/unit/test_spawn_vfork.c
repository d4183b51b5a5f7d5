/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/spawn built the portable way (vfork(), failures
 * known at once), as on machines without its raw system calls.
 */
#define SPAWN_USE_VFORK 1
#include "util/spawn.c"

#include "spawn_cases.h"
