#include <stddef.h>
extern const char *const schema_pg_migrations[];
extern const size_t schema_pg_migration_count;
extern const char *const schema_pg_roles;
extern const char *const schema_pg_after_import;
