/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger's schema as forward-only migrations: migration N (1-based) takes
 * a ledger from user_version N-1 to N. Never edit a released migration; add
 * the next one.
 */
#ifndef DAICHO_STORE_SQLITE_SCHEMA_H
#define DAICHO_STORE_SQLITE_SCHEMA_H

#include <stddef.h>

extern const char *const schema_migrations[];
extern const size_t schema_migration_count;

/* PRAGMA application_id of a daicho ledger ("DAIC"). */
#define SCHEMA_APPLICATION_ID 0x44414943

#endif
