/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The ledger's schema on PostgreSQL, as data: forward-only migrations, the
 * roles that make the trust boundary, and what to run after an import. No
 * libpq here: the driver (store/pg/libpq.c) runs these strings.
 *
 * Migration N (1-based) takes a ledger from daicho_schema.version N-1 to
 * N; the driver runs each in one transaction with PQexec, then records the
 * version. Migration 1 is SQLite's schema after its first
 * STORE_SCHEMA_VERSION migrations (store/sqlite/schema.c), with the functions
 * that give core's SQL SQLite's meaning here. Never edit a released
 * migration; add the next one, and one here for each added to
 * store/sqlite/schema.c.
 */
#ifndef DAICHO_STORE_PG_SCHEMA_H
#define DAICHO_STORE_PG_SCHEMA_H

#include <stddef.h>

extern const char *const schema_pg_migrations[];
extern const size_t schema_pg_migration_count;

/*
 * The SQLite schema version (STORE_SCHEMA_VERSION) that the last
 * PostgreSQL migration matches. SQLite's migration 9 has no twin: it
 * rewrites the tasks table's state CHECK from an IN list to ORs, the same
 * states, because SQLite builds a temporary table for such a list each
 * time the check runs; PostgreSQL's check (state IN (...), migration 1)
 * allows the same states and costs nothing of the kind.
 */
#define SCHEMA_PG_MATCHES_SQLITE_VERSION 14

/*
 * Run by `daicho init`, as the owner of the database, after the
 * migrations: makes the group roles daicho_agent and daicho_human when
 * missing and grants them what each may do on this database
 * (docs/security.md, "PostgreSQL roles"). Safe to run again.
 */
extern const char *const schema_pg_roles;

/*
 * Run after `daicho import` inserted rows with their ids, in the same
 * transaction: moves every id sequence past the largest id, so the next
 * insert does not collide. Refused (42501) to a session without the
 * daicho_human role or the owner's.
 */
extern const char *const schema_pg_after_import;

#endif
