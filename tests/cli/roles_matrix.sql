-- Every write a login might try on a daicho ledger, tried and rolled back:
-- one line per attempt, "table op column row verdict" (tab-separated),
-- yes when PostgreSQL let it through (done, or failed on a constraint), no
-- when refused (SQLSTATE 42501). tests/cli/roles_matrix.bats runs it as
-- each login and checks the lines against tests/cli/roles-policy.tsv.
--
-- psql variables: me (the writer's own agent id), task (the person's
-- task id), fixture (a VALUES list of (table, row label, ctid)).

\set ON_ERROR_STOP 1
SET lock_timeout = '10s';

-- Whether stmt gets through; rolled back either way.
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  RAISE SQLSTATE 'DA001';
EXCEPTION
  WHEN SQLSTATE 'DA001' THEN RETURN 'yes';
  WHEN insufficient_privilege THEN RETURN 'no';
  WHEN integrity_constraint_violation OR data_exception
    OR check_violation OR unique_violation OR foreign_key_violation
    OR not_null_violation THEN RETURN 'yes';
  WHEN OTHERS THEN RETURN 'error ' || SQLSTATE || ' ' || SQLERRM
    || ' in: ' || stmt;
END $$;

-- The value a one-column UPDATE sets (see tests/cli/roles-policy.tsv).
CREATE FUNCTION pg_temp.perturb(tab text, col text, typ text, me text,
  task text) RETURNS text
LANGUAGE sql AS $$
SELECT CASE
  WHEN col IN ('owner', 'actor', 'agent', 'sender', 'recipient', 'requester',
    'holder', 'created_by', 'paused_by', 'set_by') THEN me
  WHEN col IN ('task', 'parent', 'after') THEN task
  WHEN tab = 'tasks' AND col = 'state'
    THEN 'CASE state WHEN ''verified'' THEN ''open'' ELSE ''verified'' END'
  WHEN tab = 'agents' AND col = 'state' THEN '''ended'''
  WHEN tab = 'approvals' AND col = 'state' THEN '''approved'''
  WHEN tab = 'agents' AND col = 'kind'
    THEN 'CASE kind WHEN ''human'' THEN ''claude'' ELSE ''human'' END'
  WHEN tab = 'messages' AND col = 'kind' THEN '''reminder'''
  WHEN tab = 'events' AND col = 'kind' THEN '''approve'''
  WHEN typ IN ('bigint', 'integer', 'double precision')
    THEN format('coalesce(%I, 0) + 1', col)
  WHEN typ = 'bytea' THEN format('coalesce(%I, ''''::bytea) || ''\x78''::bytea', col)
  ELSE format('coalesce(%I, '''') || ''x''', col) END
$$;

CREATE TEMP TABLE fixture (tab text, label text, tid text);
INSERT INTO fixture VALUES :fixture;

CREATE TEMP VIEW cols AS
  SELECT c.table_name::text AS tab, c.column_name::text AS col,
    c.data_type::text AS typ, c.ordinal_position AS pos
  FROM information_schema.columns c
  WHERE c.table_schema = current_schema() AND c.column_name <> 'id';

CREATE TEMP VIEW attempts AS
  SELECT f.tab, 'UPDATE' AS op, c.col, f.label,
    format('UPDATE %I SET %I = %s WHERE ctid = %L', f.tab, c.col,
      pg_temp.perturb(f.tab, c.col, c.typ, :'me', :'task'), f.tid) AS stmt
  FROM fixture f JOIN cols c ON c.tab = f.tab
  UNION ALL
  SELECT f.tab, 'UPDATE*', '*', f.label,
    format('UPDATE %I SET (%s) = ROW(%s) WHERE ctid = %L', f.tab,
      string_agg(quote_ident(c.col), ', ' ORDER BY c.pos),
      string_agg(pg_temp.perturb(f.tab, c.col, c.typ, :'me', :'task'), ', ' ORDER BY c.pos),
      f.tid)
  FROM fixture f JOIN cols c ON c.tab = f.tab GROUP BY f.tab, f.label, f.tid
  UNION ALL
  SELECT f.tab, 'INSERT', '*', f.label,
    format('INSERT INTO %1$I (%2$s) SELECT %2$s FROM %1$I WHERE ctid = %3$L',
      f.tab, string_agg(quote_ident(c.col), ', ' ORDER BY c.pos), f.tid)
  FROM fixture f JOIN cols c ON c.tab = f.tab GROUP BY f.tab, f.label, f.tid
  UNION ALL
  SELECT f.tab, 'DELETE', '*', f.label,
    format('DELETE FROM %I WHERE ctid = %L', f.tab, f.tid)
  FROM fixture f
  UNION ALL
  SELECT t.table_name::text, 'LOCK', '*', '-',
    format('LOCK TABLE %I IN SHARE ROW EXCLUSIVE MODE', t.table_name)
  FROM information_schema.tables t
  WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE';

\pset format unaligned
\pset fieldsep '\t'
\pset tuples_only on
SELECT tab, op, col, label, pg_temp.try(stmt) FROM attempts
ORDER BY tab, op, col, label;
