/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * Core's SQL is SQLite's dialect; libpq's calls (src/store/pg) and the
 * pool's client (src/store/pool) read it as PostgreSQL's.
 */
#ifndef DAICHO_SQLDIALECT_H
#define DAICHO_SQLDIALECT_H

/*
 * sql in PostgreSQL's dialect, newly allocated: ?N becomes $N (a bare ? is
 * one more than the largest number so far, as in SQLite), and "INDEXED BY
 * name" goes. Quoted strings and identifiers are copied as they are.
 * *nparams gets the largest parameter number.
 */
char *sql_dialect_postgresql(const char *sql, int *nparams);

#endif
