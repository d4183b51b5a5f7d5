/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * A program linked without a PostgreSQL driver (the unit tests, a
 * dashboard built without libpq): store/driver.h's choice, made when the
 * program is linked. main.c hands a command on a PostgreSQL ledger to
 * daicho-pg before it could be needed.
 */
#include "store/driver.h"

const struct db_driver *const store_postgresql_driver = NULL;
