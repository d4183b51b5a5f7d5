/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
#include "store/sqlite/schema.h"

#include "store/driver.h"

const char *const schema_migrations[] = {
	/* 1: agents, tasks and their edges, saves, events. */
	"CREATE TABLE agents ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  role TEXT,"
	"  kind TEXT NOT NULL CHECK (kind IN"
	"    ('claude','codex','gemini','script','human')),"
	"  session_id TEXT,"
	"  pid INTEGER,"
	"  host TEXT,"
	"  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN"
	"    ('active','waiting','stale','ended')),"
	"  started_ms INTEGER NOT NULL,"
	"  last_seen_ms INTEGER NOT NULL,"
	"  ended_ms INTEGER"
	") STRICT;"
	"CREATE UNIQUE INDEX agents_live_name ON agents(name)"
	"  WHERE state <> 'ended';"
	"CREATE INDEX agents_live_session ON agents(session_id)"
	"  WHERE session_id IS NOT NULL AND state <> 'ended';"
	"CREATE TABLE tasks ("
	"  id INTEGER PRIMARY KEY,"
	"  title TEXT NOT NULL CHECK (length(title) > 0),"
	"  body BLOB NOT NULL DEFAULT x'',"
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN"
	"    ('open','claimed','reported','verified','blocked','cancelled',"
	"     'failed')),"
	"  parent INTEGER REFERENCES tasks(id),"
	"  owner INTEGER REFERENCES agents(id),"
	"  lease_ms INTEGER,"
	"  lease_expires_ms INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts > 0),"
	"  unmet_deps INTEGER NOT NULL DEFAULT 0,"
	"  has_touches INTEGER NOT NULL DEFAULT 0,"
	"  report_commit TEXT,"
	"  report_note TEXT,"
	"  block_reason TEXT,"
	"  created_ms INTEGER NOT NULL,"
	"  updated_ms INTEGER NOT NULL,"
	"  CHECK (state <> 'claimed' OR"
	"    (owner IS NOT NULL AND lease_expires_ms IS NOT NULL))"
	") STRICT;"
	"CREATE INDEX tasks_ready ON tasks(priority DESC, id)"
	"  WHERE state = 'open' AND unmet_deps = 0;"
	"CREATE INDEX tasks_claimed_lease ON tasks(lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE INDEX tasks_owner ON tasks(owner) WHERE owner IS NOT NULL;"
	"CREATE INDEX tasks_state ON tasks(state);"
	"CREATE TABLE deps ("
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  after INTEGER NOT NULL REFERENCES tasks(id),"
	"  PRIMARY KEY (task, after)"
	") STRICT, WITHOUT ROWID;"
	"CREATE INDEX deps_after ON deps(after, task);"
	"CREATE TABLE labels ("
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  label TEXT NOT NULL,"
	"  PRIMARY KEY (task, label)"
	") STRICT, WITHOUT ROWID;"
	"CREATE INDEX labels_label ON labels(label, task);"
	"CREATE TABLE touches ("
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  glob TEXT NOT NULL,"
	"  PRIMARY KEY (task, glob)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE checks ("
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  seq INTEGER NOT NULL,"
	"  spec TEXT NOT NULL,"
	"  PRIMARY KEY (task, seq)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE saves ("
	"  id INTEGER PRIMARY KEY,"
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  agent INTEGER REFERENCES agents(id),"
	"  at_ms INTEGER NOT NULL,"
	"  result BLOB NOT NULL,"
	"  tokens_in INTEGER,"
	"  tokens_out INTEGER,"
	"  cost REAL,"
	"  model TEXT"
	") STRICT;"
	"CREATE INDEX saves_task ON saves(task, id);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  at_ms INTEGER NOT NULL,"
	"  actor INTEGER REFERENCES agents(id),"
	"  kind TEXT NOT NULL,"
	"  task INTEGER REFERENCES tasks(id),"
	"  detail TEXT"
	") STRICT;"
	"CREATE INDEX events_task ON events(task) WHERE task IS NOT NULL;",

	/*
	 * 2: verification. A reported task is taken for verification with a
	 * short claim (token, expiry); every verdict and the run of each of
	 * its checks are kept as evidence.
	 */
	"ALTER TABLE tasks ADD COLUMN check_timeout_ms INTEGER;"
	"ALTER TABLE tasks ADD COLUMN verify_token TEXT;"
	"ALTER TABLE tasks ADD COLUMN verify_expires_ms INTEGER;"
	"CREATE TABLE verdicts ("
	"  id INTEGER PRIMARY KEY,"
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  at_ms INTEGER NOT NULL,"
	"  actor INTEGER REFERENCES agents(id),"
	"  passed INTEGER NOT NULL,"
	"  commit_hash TEXT,"
	"  summary TEXT NOT NULL"
	") STRICT;"
	"CREATE INDEX verdicts_task ON verdicts(task, id);"
	"CREATE TABLE check_runs ("
	"  verdict INTEGER NOT NULL REFERENCES verdicts(id),"
	"  seq INTEGER NOT NULL,"
	"  spec TEXT NOT NULL,"
	"  passed INTEGER NOT NULL,"
	"  exit_status INTEGER,"
	"  duration_ms INTEGER NOT NULL,"
	"  output BLOB NOT NULL,"
	"  PRIMARY KEY (verdict, seq)"
	") STRICT, WITHOUT ROWID;",

	/*
	 * 3: the runner. A task that failed in a runner waits out a backoff
	 * before it is ready again.
	 */
	"ALTER TABLE tasks ADD COLUMN not_before_ms INTEGER;",

	/*
	 * 4: waits and messages. A wait belongs to the waiting agent and to
	 * its owner, who asked for it; its items are what it waits on (task
	 * items close when the task does). A message is addressed by name and
	 * resolved at send time to one agent (recipient), or kept by name
	 * alone when queued for an agent that is gone.
	 */
	"CREATE TABLE waits ("
	"  id INTEGER PRIMARY KEY,"
	"  agent INTEGER NOT NULL REFERENCES agents(id),"
	"  owner INTEGER REFERENCES agents(id),"
	"  what TEXT NOT NULL,"
	"  remind_ms INTEGER NOT NULL CHECK (remind_ms > 0),"
	"  started_ms INTEGER NOT NULL,"
	"  reminded_ms INTEGER,"
	"  needs_human INTEGER NOT NULL DEFAULT 0,"
	"  ended_ms INTEGER"
	") STRICT;"
	"CREATE INDEX waits_open ON waits(agent) WHERE ended_ms IS NULL;"
	"CREATE INDEX waits_open_owner ON waits(owner) WHERE ended_ms IS NULL;"
	"CREATE TABLE wait_items ("
	"  wait INTEGER NOT NULL REFERENCES waits(id),"
	"  seq INTEGER NOT NULL,"
	"  what TEXT NOT NULL,"
	"  task INTEGER REFERENCES tasks(id),"
	"  PRIMARY KEY (wait, seq)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE messages ("
	"  id INTEGER PRIMARY KEY,"
	"  sender INTEGER REFERENCES agents(id),"
	"  recipient INTEGER REFERENCES agents(id),"
	"  recipient_name TEXT NOT NULL,"
	"  addressed_to TEXT NOT NULL,"
	"  kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN"
	"    ('message','reminder')),"
	"  body TEXT NOT NULL,"
	"  sent_ms INTEGER NOT NULL,"
	"  recipient_seen_ms INTEGER,"
	"  queued INTEGER NOT NULL DEFAULT 0,"
	"  read_ms INTEGER"
	") STRICT;"
	"CREATE INDEX messages_unread ON messages(recipient, id)"
	"  WHERE read_ms IS NULL;"
	"CREATE INDEX messages_queued ON messages(recipient_name, id)"
	"  WHERE read_ms IS NULL AND queued = 1;"
	"CREATE INDEX agents_role ON agents(role) WHERE state <> 'ended';"
	"CREATE INDEX tasks_owner_claimed ON tasks(owner, lease_expires_ms)"
	"  WHERE state = 'claimed';",

	/*
	 * 5: enforcement. Reservations of path globs held by agents (a
	 * claimed task's touches are reserved too, derived from the claim);
	 * gates on command patterns; approvals bound to the requesting agent
	 * and the command's fingerprint (words and directory). A denial is
	 * remembered by command_key (the words alone) for every agent.
	 */
	"CREATE TABLE reservations ("
	"  id INTEGER PRIMARY KEY,"
	"  agent INTEGER NOT NULL REFERENCES agents(id),"
	"  glob TEXT NOT NULL,"
	"  task INTEGER REFERENCES tasks(id),"
	"  created_ms INTEGER NOT NULL,"
	"  expires_ms INTEGER NOT NULL,"
	"  released_ms INTEGER"
	") STRICT;"
	"CREATE INDEX reservations_live ON reservations(agent, glob)"
	"  WHERE released_ms IS NULL;"
	"CREATE TABLE gates ("
	"  id INTEGER PRIMARY KEY,"
	"  pattern TEXT NOT NULL UNIQUE,"
	"  approval INTEGER NOT NULL DEFAULT 0,"
	"  requires TEXT NOT NULL DEFAULT '[]',"
	"  note TEXT,"
	"  created_ms INTEGER NOT NULL,"
	"  created_by INTEGER REFERENCES agents(id)"
	") STRICT;"
	"CREATE TABLE approvals ("
	"  id INTEGER PRIMARY KEY,"
	"  fingerprint TEXT NOT NULL,"
	"  command_key TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  cwd TEXT NOT NULL,"
	"  gate INTEGER REFERENCES gates(id),"
	"  requester INTEGER NOT NULL REFERENCES agents(id),"
	"  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN"
	"    ('pending','approved','denied','used')),"
	"  requested_ms INTEGER NOT NULL,"
	"  decided_ms INTEGER,"
	"  decided_by TEXT,"
	"  decided_tty TEXT,"
	"  condition TEXT,"
	"  reason TEXT,"
	"  expires_ms INTEGER,"
	"  used_ms INTEGER"
	") STRICT;"
	"CREATE INDEX approvals_fingerprint ON approvals(fingerprint, requester);"
	"CREATE INDEX approvals_denied ON approvals(command_key)"
	"  WHERE state = 'denied';"
	"CREATE INDEX approvals_state ON approvals(state, id);",

	/*
	 * 6: agents by name whatever their state (addressing an ended agent,
	 * its successor inheriting), and by liveness (the sweep's stale scan).
	 */
	"CREATE INDEX agents_name ON agents(name, id);"
	"CREATE INDEX agents_liveness ON agents(state, last_seen_ms);",

	/*
	 * 7: evidence that cannot be faked, and claims that cannot be
	 * orphaned. A claim records the trunk's commit when it was taken
	 * (claim_base: reported work must be new since then), when a command
	 * of its holder last named the task (claim_named_ms) and how long a
	 * claim lives past that on generic heartbeats alone (max_hold_ms).
	 * A task's checks carry a version that every change of them raises,
	 * and each verdict says which version it ran, and the tree of the
	 * commit it accepted (the same work under another hash counts once).
	 * Protected globs are
	 * paths a report must not change; settings hold ledger-wide defaults
	 * (the protected list, the maximum hold).
	 */
	"ALTER TABLE tasks ADD COLUMN claim_base TEXT;"
	"ALTER TABLE tasks ADD COLUMN claim_named_ms INTEGER;"
	"ALTER TABLE tasks ADD COLUMN max_hold_ms INTEGER;"
	"ALTER TABLE tasks ADD COLUMN checks_version INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE verdicts ADD COLUMN checks_version INTEGER;"
	"ALTER TABLE verdicts ADD COLUMN tree TEXT;"
	"CREATE INDEX verdicts_commit ON verdicts(commit_hash)"
	"  WHERE passed AND commit_hash IS NOT NULL;"
	"CREATE INDEX verdicts_tree ON verdicts(tree)"
	"  WHERE passed AND tree IS NOT NULL;"
	"CREATE TABLE protects ("
	"  task INTEGER NOT NULL REFERENCES tasks(id),"
	"  glob TEXT NOT NULL,"
	"  PRIMARY KEY (task, glob)"
	") STRICT, WITHOUT ROWID;"
	"CREATE TABLE settings ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL,"
	"  set_ms INTEGER NOT NULL,"
	"  set_by INTEGER REFERENCES agents(id)"
	") STRICT, WITHOUT ROWID;",

	/*
	 * 8: what needs a person (core/needs.c) finds a run's budget stop
	 * without reading every event.
	 */
	"CREATE INDEX events_budget_spent ON events(at_ms, id)"
	"  WHERE kind = 'budget-spent';",

	/*
	 * 9: the tasks table rebuilt with its state CHECK written as ORs: an
	 * IN list of more than two constants makes SQLite build a temporary
	 * b-tree of the list each time the check runs, on every change of a
	 * task's state (a fifth of a runner's instructions per job). The
	 * same states are allowed. SQLite cannot alter a CHECK in place
	 * (before 3.53), so this is the rebuild of its documented procedure
	 * (lang_altertable.html, "Making Other Kinds Of Table Schema
	 * Changes"): a new table in the same column order, every row copied
	 * with its id, the old one dropped, the new one renamed, its indexes
	 * made again. migrate() runs it with foreign keys off, as that
	 * procedure requires (dropping a parent table would otherwise delete
	 * through its references); no reference can break, as every id is
	 * kept.
	 */
	"CREATE TABLE tasks_rebuilt ("
	"  id INTEGER PRIMARY KEY,"
	"  title TEXT NOT NULL CHECK (length(title) > 0),"
	"  body BLOB NOT NULL DEFAULT x'',"
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'open' CHECK (state = 'open' OR"
	"    state = 'claimed' OR state = 'reported' OR state = 'verified' OR"
	"    state = 'blocked' OR state = 'cancelled' OR state = 'failed'),"
	"  parent INTEGER REFERENCES tasks(id),"
	"  owner INTEGER REFERENCES agents(id),"
	"  lease_ms INTEGER,"
	"  lease_expires_ms INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts > 0),"
	"  unmet_deps INTEGER NOT NULL DEFAULT 0,"
	"  has_touches INTEGER NOT NULL DEFAULT 0,"
	"  report_commit TEXT,"
	"  report_note TEXT,"
	"  block_reason TEXT,"
	"  created_ms INTEGER NOT NULL,"
	"  updated_ms INTEGER NOT NULL,"
	"  check_timeout_ms INTEGER,"
	"  verify_token TEXT,"
	"  verify_expires_ms INTEGER,"
	"  not_before_ms INTEGER,"
	"  claim_base TEXT,"
	"  claim_named_ms INTEGER,"
	"  max_hold_ms INTEGER,"
	"  checks_version INTEGER NOT NULL DEFAULT 1,"
	"  CHECK (state <> 'claimed' OR"
	"    (owner IS NOT NULL AND lease_expires_ms IS NOT NULL))"
	") STRICT;"
	"INSERT INTO tasks_rebuilt (id, title, body, priority, state, parent,"
	"  owner, lease_ms, lease_expires_ms, attempts, max_attempts,"
	"  unmet_deps, has_touches, report_commit, report_note, block_reason,"
	"  created_ms, updated_ms, check_timeout_ms, verify_token,"
	"  verify_expires_ms, not_before_ms, claim_base, claim_named_ms,"
	"  max_hold_ms, checks_version)"
	"  SELECT id, title, body, priority, state, parent, owner, lease_ms,"
	"  lease_expires_ms, attempts, max_attempts, unmet_deps, has_touches,"
	"  report_commit, report_note, block_reason, created_ms, updated_ms,"
	"  check_timeout_ms, verify_token, verify_expires_ms, not_before_ms,"
	"  claim_base, claim_named_ms, max_hold_ms, checks_version FROM tasks;"
	"DROP TABLE tasks;"
	"ALTER TABLE tasks_rebuilt RENAME TO tasks;"
	"CREATE INDEX tasks_ready ON tasks(priority DESC, id)"
	"  WHERE state = 'open' AND unmet_deps = 0;"
	"CREATE INDEX tasks_claimed_lease ON tasks(lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE INDEX tasks_owner ON tasks(owner) WHERE owner IS NOT NULL;"
	"CREATE INDEX tasks_state ON tasks(state);"
	"CREATE INDEX tasks_owner_claimed ON tasks(owner, lease_expires_ms)"
	"  WHERE state = 'claimed';",

	/*
	 * 10: landing (core/land.c). Verified work that must reach the trunk
	 * waits in a queue (land_queued_ms) until a lander merges it, checks
	 * the merged tree and moves the trunk: then the task is 'landed', with
	 * the trunk commit that holds it. A batch being landed records the
	 * trunk it started from (land_base), so that a lander killed after
	 * the trunk moved finds its commit again, by the line with the pass's
	 * token (land_token) that commit carries. A landing sent back counts
	 * in land_tries and says why in land_note (the prompt shows it); one
	 * that waits for a person says why in land_waiting. One lander works
	 * at a time, holding the single row of land_lock (made by the first
	 * lander) until it expires, or until its process, on the host it
	 * names, is gone; the row also records a person's pause. The state CHECK gains 'landed' by the same
	 * rebuild as migration 9.
	 */
	"CREATE TABLE tasks_rebuilt ("
	"  id INTEGER PRIMARY KEY,"
	"  title TEXT NOT NULL CHECK (length(title) > 0),"
	"  body BLOB NOT NULL DEFAULT x'',"
	"  priority INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'open' CHECK (state = 'open' OR"
	"    state = 'claimed' OR state = 'reported' OR state = 'verified' OR"
	"    state = 'blocked' OR state = 'cancelled' OR state = 'failed' OR"
	"    state = 'landed'),"
	"  parent INTEGER REFERENCES tasks(id),"
	"  owner INTEGER REFERENCES agents(id),"
	"  lease_ms INTEGER,"
	"  lease_expires_ms INTEGER,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts > 0),"
	"  unmet_deps INTEGER NOT NULL DEFAULT 0,"
	"  has_touches INTEGER NOT NULL DEFAULT 0,"
	"  report_commit TEXT,"
	"  report_note TEXT,"
	"  block_reason TEXT,"
	"  created_ms INTEGER NOT NULL,"
	"  updated_ms INTEGER NOT NULL,"
	"  check_timeout_ms INTEGER,"
	"  verify_token TEXT,"
	"  verify_expires_ms INTEGER,"
	"  not_before_ms INTEGER,"
	"  claim_base TEXT,"
	"  claim_named_ms INTEGER,"
	"  max_hold_ms INTEGER,"
	"  checks_version INTEGER NOT NULL DEFAULT 1,"
	"  land_queued_ms INTEGER,"
	"  land_base TEXT,"
	"  land_token TEXT,"
	"  land_tries INTEGER NOT NULL DEFAULT 0,"
	"  land_note TEXT,"
	"  land_waiting TEXT,"
	"  landed_commit TEXT,"
	"  landed_trunk TEXT,"
	"  landed_ms INTEGER,"
	"  CHECK (state <> 'claimed' OR"
	"    (owner IS NOT NULL AND lease_expires_ms IS NOT NULL))"
	") STRICT;"
	"INSERT INTO tasks_rebuilt (id, title, body, priority, state, parent,"
	"  owner, lease_ms, lease_expires_ms, attempts, max_attempts,"
	"  unmet_deps, has_touches, report_commit, report_note, block_reason,"
	"  created_ms, updated_ms, check_timeout_ms, verify_token,"
	"  verify_expires_ms, not_before_ms, claim_base, claim_named_ms,"
	"  max_hold_ms, checks_version)"
	"  SELECT id, title, body, priority, state, parent, owner, lease_ms,"
	"  lease_expires_ms, attempts, max_attempts, unmet_deps, has_touches,"
	"  report_commit, report_note, block_reason, created_ms, updated_ms,"
	"  check_timeout_ms, verify_token, verify_expires_ms, not_before_ms,"
	"  claim_base, claim_named_ms, max_hold_ms, checks_version FROM tasks;"
	"DROP TABLE tasks;"
	"ALTER TABLE tasks_rebuilt RENAME TO tasks;"
	"CREATE INDEX tasks_ready ON tasks(priority DESC, id)"
	"  WHERE state = 'open' AND unmet_deps = 0;"
	"CREATE INDEX tasks_claimed_lease ON tasks(lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE INDEX tasks_owner ON tasks(owner) WHERE owner IS NOT NULL;"
	"CREATE INDEX tasks_state ON tasks(state);"
	"CREATE INDEX tasks_owner_claimed ON tasks(owner, lease_expires_ms)"
	"  WHERE state = 'claimed';"
	"CREATE INDEX tasks_land_queue ON tasks(land_queued_ms, id)"
	"  WHERE state = 'verified' AND land_queued_ms IS NOT NULL;"
	"CREATE TABLE land_lock ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  token TEXT,"
	"  expires_ms INTEGER,"
	"  holder INTEGER REFERENCES agents(id),"
	"  host TEXT,"
	"  pid INTEGER,"
	"  pid_start INTEGER,"
	"  paused_ms INTEGER,"
	"  paused_by INTEGER REFERENCES agents(id)"
	") STRICT;",

	/*
	 * 11: the judge's own world (core/checkrun.c, core/verify.c). A
	 * verdict records how its commands ran (sandbox: 'sandbox', or 'off'
	 * when a person turned the sandbox off; NULL when none ran) and
	 * whether the checks proved nothing (vacuous: they passed on the
	 * claim's base already). Each check run records its result at the
	 * base (base_passed; NULL: not run there). A task a person marked
	 * --no-baseline is judged without the base's run; check_needs says
	 * what more than the sandbox its commands need ("net"), set by a
	 * person only. baselines keeps what a check gave on a tree (the
	 * claim's base), so that tasks claimed from one trunk run it once.
	 */
	"ALTER TABLE verdicts ADD COLUMN sandbox TEXT;"
	"ALTER TABLE verdicts ADD COLUMN vacuous INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE check_runs ADD COLUMN base_passed INTEGER;"
	"ALTER TABLE tasks ADD COLUMN no_baseline INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE tasks ADD COLUMN check_needs TEXT;"
	"CREATE TABLE baselines ("
	"  tree TEXT NOT NULL,"
	"  key TEXT NOT NULL,"
	"  passed INTEGER NOT NULL,"
	"  at_ms INTEGER NOT NULL,"
	"  PRIMARY KEY (tree, key)"
	") STRICT, WITHOUT ROWID;",

	/*
	 * 12: check inputs traced (core/verify.c, util/trace.h). Beside a
	 * cmd: check's result on a tree, baselines keeps what it read and
	 * looked for there (JSON: {"read": [...], "missing": [...]}). The
	 * results kept before have none, and are run again.
	 */
	"ALTER TABLE baselines ADD COLUMN inputs TEXT;"
	"DELETE FROM baselines;",

	/*
	 * 13: tamper evidence (core/audit.c). Each event from now on carries
	 * the hash that chains it to the one before (EVENT_HASH_SQL in
	 * core/event.h); the events before have none, and the chain begins
	 * after them. audits keeps the last audit's result (one row), for
	 * what needs a person.
	 */
	"ALTER TABLE events ADD COLUMN hash TEXT;"
	"CREATE TABLE audits ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  at_ms INTEGER NOT NULL,"
	"  findings INTEGER NOT NULL,"
	"  detail TEXT"
	") STRICT;",

	/*
	 * 14: a message answers another ('send --reply-to'); the reopens,
	 * found by NEEDS YOU without reading every event (core/needs.c).
	 */
	"ALTER TABLE messages ADD COLUMN reply_to INTEGER REFERENCES messages(id);"
	"CREATE INDEX events_reopen ON events(task, id) WHERE kind = 'reopen';",
};

const size_t schema_migration_count =
    sizeof(schema_migrations) / sizeof(schema_migrations[0]);

_Static_assert(sizeof(schema_migrations) / sizeof(schema_migrations[0]) ==
	STORE_SCHEMA_VERSION,
    "STORE_SCHEMA_VERSION must count the migrations");
