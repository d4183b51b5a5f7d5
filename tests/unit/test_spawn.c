/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Unit tests for util/spawn as built on this machine: on x86-64 and
 * AArch64 the child shares the parent's memory and is not waited for
 * (the cases are in spawn_cases.h).
 */
#include "util/spawn.c"

#include "spawn_cases.h"
