/* Copyright (c) 2026 the daicho authors; ISC licence (LICENSE). */
/*
 * libFuzzer target for integ/hook: the JSON an agent client pipes to
 * `daicho hook`, answered against a real ledger with gates (one needing
 * approval, one with a requirement) and another agent's reservation, so
 * that shell commands are split and matched and edited paths checked. The
 * input's first byte picks the client and the event, the rest is the
 * payload. An answer must never crash or leak, its exit status is 0 or 2,
 * and what it prints is a JSON object or nothing. Each input is answered
 * inside a transaction that is rolled back, so that none changes what the
 * next one sees (a session-end would end the caller) and a crash reproduces
 * from its input alone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agent.h"
#include "core/db.h"
#include "core/gate.h"
#include "core/reserve.h"
#include "integ/hook.h"
#include "util/clock.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/daicho-fuzz-hook-XXXXXX";
static struct ledger *ledger;
static struct agent caller;

/* At exit: the ledger and its directory go. */
static void
clean_up(void)
{
	static const char *const files[] = { "", "-wal", "-shm", "-lock" };
	char path[sizeof(dir) + 32];

	ledger_close(ledger);
	agent_release(&caller);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/ledger.db%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void
must(int rc, const struct err *err, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "fuzz_hook: %s: %s\n", what, err->message.buf);
		exit(1);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[sizeof(dir) + 16];
	char *requires[] = { "true" };
	char *globs[] = { "src/**" };
	struct gate_spec approval = { "git push", true, NULL, 0, "ask first" };
	struct gate_spec checked = { "make deploy", false, requires, 1, NULL };
	struct reserve_request reserve = { globs, 1, 0, 3600000, 3600000 };
	struct agent_claim claim = { "fuzz", NULL, "claude", "human" };
	struct err err = ERR_INIT;
	int64_t id;

	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL) {
		perror("fuzz_hook: mkdtemp");
		exit(1);
	}
	atexit(clean_up);
	snprintf(path, sizeof(path), "%s/ledger.db", dir);
	must(ledger_create(path, &err), &err, "create");
	must(ledger_open(path, &ledger, &err), &err, "open");
	must(agent_start(ledger, "other", "script", NULL, 0, &id, &err), &err,
	    "agent");
	ledger_set_caller(ledger, id);
	must(gate_add(ledger, &approval, &id, &err), &err, "gate");
	must(gate_add(ledger, &checked, &id, &err), &err, "gate");
	must(reserve_take(ledger, &reserve, &err), &err, "reserve");
	must(agent_resolve(ledger, &claim, &caller, &err), &err, "caller");
	ledger_set_caller(ledger, caller.id);
	return 0;
}

/* An exit status of 0 or 2, and for stdout a JSON object or nothing. */
static bool
answer_is_valid(const struct hook_answer *answer)
{
	return (answer->exit_status == 0 || answer->exit_status == 2) &&
	       (answer->output == NULL || json_is_object(answer->output));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hook_request request = { 0 };
	struct hook_answer answer;
	struct err err = ERR_INIT;
	json_t *payload;

	if (size < 1)
		return 0;
	payload = json_loadb((const char *)data + 1, size - 1, 0, NULL);
	if (!json_is_object(payload)) {
		json_decref(payload);
		return 0;
	}
	request.client = (enum hook_client)(data[0] % 3);
	request.event = (enum hook_event)(data[0] / 3 % 5);
	request.payload = payload;
	request.ledger = ledger;
	request.caller = &caller;
	request.session_id = json_string_value(json_object_get(payload,
	    "session_id"));
	must(ledger_begin(ledger, &err), &err, "begin");
	/* The other agent stays live, however long the fuzzing runs. */
	must(db_write(ledger, "UPDATE agents SET last_seen_ms = ?1"
		 " WHERE name = 'other'", clock_now_ms(), 0, NULL,
		 "keeping the other agent live", &err), &err, "seen");
	hook_answer_init(&answer);
	hook_answer(&request, &answer);
	if (!answer_is_valid(&answer))
		abort();
	hook_answer_release(&answer);
	ledger_rollback(ledger);
	hook_answer_init(&answer);
	hook_answer_unreadable(request.client, request.event, payload, "fuzz",
	    &answer);
	if (!answer_is_valid(&answer))
		abort();
	hook_answer_release(&answer);
	json_decref(payload);
	return 0;
}
