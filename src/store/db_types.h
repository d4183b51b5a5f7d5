/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * The values the statement interface (core/db.h) and the store's drivers
 * (store/driver.h) both speak of: what a step returns, what kind of value
 * a column holds, which constraint refused a row.
 */
#ifndef DAICHO_STORE_DB_TYPES_H
#define DAICHO_STORE_DB_TYPES_H

/* What db_step() returns besides an error. */
enum db_step_result {
	DB_ROW = 100,  /* a row is ready to be read */
	DB_DONE = 101, /* the statement has run to its end */
};

/* What kind of value column i of the current row holds. */
enum db_type { DB_INTEGER, DB_REAL, DB_TEXT, DB_BLOB, DB_NULL };

/* Which constraint refused a row (db_is_constraint()), whatever the engine. */
enum db_constraint {
	DB_CONSTRAINT_OTHER,	   /* a CHECK, NOT NULL or a value's type */
	DB_CONSTRAINT_UNIQUE,	   /* a key or unique value already taken */
	DB_CONSTRAINT_FOREIGN_KEY, /* a reference to a row that is not there */
};

#endif
