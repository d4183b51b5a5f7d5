// The protocol tests of `daicho mcp`, one scenario per run:
//   node tests/mcp/run.js SCENARIO
// (tests/mcp/mcp.bats runs each, so that make check counts them). Exits 0
// when the scenario passes; an assertion failure prints what differed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import Ajv from 'ajv';
import { makeLedger, cli, cliJson, dump, connect, call, ok, refused, raw,
	INIT_PARAMS, DAICHO, counts, runScenario } from './lib.js';

const TOOLS = ['claim', 'prompt', 'save', 'report', 'release', 'block', 'ls',
	'show', 'result', 'add', 'send', 'inbox', 'wait', 'resume', 'reserve',
	'unreserve', 'status', 'handoff'];
const HUMAN_ONLY = ['approve', 'deny', 'gate', 'gate_rm', 'unblock', 'edit',
	'reopen', 'config', 'cancel'];

const scenarios = {};

// initialize: both versions agreed, an unknown one answered with ours.
scenarios['initialize-versions'] = async (t) => {
	for (const [asked, got] of [['2025-11-25', '2025-11-25'],
		['2025-06-18', '2025-06-18'], ['1999-01-01', '2025-11-25'],
		['2024-11-05', '2025-11-25']]) {
		const s = raw(t);
		const m = await s.request(1, 'initialize', INIT_PARAMS(asked));
		assert.equal(m.jsonrpc, '2.0');
		assert.equal(m.id, 1);
		assert.equal(m.result.protocolVersion, got, `asked ${asked}`);
		assert.equal(m.result.serverInfo.name, 'daicho');
		assert.ok(m.result.capabilities.tools);
		assert.ok(m.result.capabilities.logging);
		assert.equal(m.result.capabilities.resources.subscribe, true);
		assert.equal(typeof m.result.instructions, 'string');
		s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
		const p = await s.request(2, 'ping');
		assert.deepEqual(p, { jsonrpc: '2.0', id: 2, result: {} });
		assert.equal(await s.close(), 0);
	}
	// No version at all: invalid params.
	const s = raw(t);
	const m = await s.request(7, 'initialize', { capabilities: {} });
	assert.equal(m.error.code, -32602);
	assert.equal(await s.close(), 0);
	// The SDK's own handshake (it asks for the newest).
	const client = await connect(t, { as: 'sdk' });
	assert.equal(client.getServerVersion().name, 'daicho');
	assert.ok(client.getServerCapabilities().tools);
	await client.close();
};

// tools/list: exactly the agent tools, each schema valid JSON Schema with
// a description for every argument, and --list-tools the same list.
scenarios['tools-list-schemas'] = async (t) => {
	const client = await connect(t, { as: 'w1' });
	const { tools } = await client.listTools();
	assert.deepEqual(tools.map((x) => x.name).sort(), [...TOOLS].sort());
	for (const name of HUMAN_ONLY)
		assert.ok(!tools.some((x) => x.name === name), `${name} is a human's`);
	const ajv = new Ajv({ strict: true, allowUnionTypes: true });
	for (const tool of tools) {
		assert.equal(typeof tool.description, 'string');
		assert.ok(tool.description.length > 20, tool.name);
		assert.equal(tool.inputSchema.type, 'object');
		assert.equal(tool.inputSchema.additionalProperties, false);
		ajv.compile(tool.inputSchema);
		ajv.compile(tool.outputSchema);
		assert.equal(tool.outputSchema.type, 'object');
		for (const [arg, schema] of Object.entries(tool.inputSchema.properties))
			assert.ok(schema.description, `${tool.name}.${arg} has a description`);
		assert.equal(typeof tool.annotations.readOnlyHint, 'boolean');
	}
	const listed = cli(t, ['mcp', '--list-tools']);
	assert.equal(listed.status, 0, listed.stderr);
	assert.deepEqual(JSON.parse(listed.stdout).tools, tools);
	await client.close();
};

// Every tool with good input: the SDK checks each structuredContent
// against the tool's outputSchema; the content matches the CLI's --json.
scenarios['good-calls'] = async (t) => {
	const boss = await connect(t, { as: 'boss' });
	const w1 = await connect(t, { as: 'w1' });
	const one = await ok(boss, 'add', { title: 'Write the parser', body: 'Parse it.\n',
		priority: 5, labels: ['parser'], touches: ['src/parse*'],
		done_when: ['saved'], max_attempts: 2, check_timeout: '90s' });
	assert.equal(typeof one.id, 'number');
	const batch = await ok(boss, 'add', { tasks: [
		{ key: 'a', title: 'Batch A', body: 'A' },
		{ title: 'Batch B', after: ['a'], priority: 1 },
		{ title: 'Batch C' }], labels: ['batch'] });
	assert.equal(batch.ids.length, 3);
	const child = await ok(boss, 'add', { title: 'Child', parent: one.id,
		after: [batch.ids[2]], protect: ['tests/**'] });
	assert.deepEqual(cliJson(t, ['show', String(child.id)]).after, [batch.ids[2]]);

	const listed = await ok(w1, 'ls', {});
	assert.deepEqual(listed.tasks, cliJson(t, ['ls', '--limit', '200']));
	assert.deepEqual((await ok(w1, 'ls', { ready: true })).tasks.map((x) => x.id),
		cliJson(t, ['ls', '--ready']).map((x) => x.id));
	assert.deepEqual((await ok(w1, 'ls', { label: 'batch', limit: 2 })).tasks.length, 2);

	const claimed = await ok(w1, 'claim', { next: true });
	assert.equal(claimed.id, one.id, 'the highest priority first');
	const shown = await ok(w1, 'show', { id: one.id });
	assert.equal(shown.state, 'claimed');
	assert.equal(shown.owner, 'w1');
	assert.equal(shown.last_verdict, null);
	const prompt = await ok(w1, 'prompt', { id: one.id });
	assert.deepEqual(prompt, { id: one.id, bytes: 10, body: 'Parse it.\n' });
	assert.deepEqual(prompt, cliJson(t, ['prompt', String(one.id)]));
	assert.equal(cli(t, ['prompt', String(one.id)]).stdout, 'Parse it.\n');
	assert.deepEqual(await ok(w1, 'save', { id: one.id, text: 'parsed: ok', tokens_in: 10,
		tokens_out: 20, cost: 0.25, model: 'm1' }), { ok: true });
	assert.deepEqual(await ok(w1, 'result', { id: one.id }),
		{ id: one.id, bytes: 10, result: 'parsed: ok' });
	assert.equal(cli(t, ['result', String(one.id)]).stdout, 'parsed: ok');
	assert.deepEqual(await ok(w1, 'report', { id: one.id, note: 'done' }), { ok: true });
	assert.equal(cliJson(t, ['show', String(one.id)]).state, 'reported');
	assert.equal(cliJson(t, ['show', String(one.id)]).note, 'done');

	// By id, then release; by label; block.
	const byId = await ok(w1, 'claim', { id: batch.ids[0], lease: '10m', max_hold: '1h' });
	assert.equal(byId.id, batch.ids[0]);
	assert.deepEqual(await ok(w1, 'release', { id: batch.ids[0] }), { ok: true });
	assert.equal(cliJson(t, ['show', String(batch.ids[0])]).state, 'open');
	const labelled = await ok(w1, 'claim', { next: true, label: 'batch' });
	assert.ok(batch.ids.includes(labelled.id));
	assert.deepEqual(await ok(w1, 'block', { id: labelled.id, reason: 'needs a key' }),
		{ ok: true });
	assert.equal(cliJson(t, ['show', String(labelled.id)]).block_reason, 'needs a key');

	// Messages.
	const sent = await ok(boss, 'send', { to: 'w1', text: 'hello\nthere' });
	assert.equal(sent.sent.length, 1);
	assert.equal(sent.sent[0].to, 'w1');
	const peeked = await ok(w1, 'inbox', { peek: true });
	assert.equal(peeked.messages.length, 1);
	const inbox = await ok(w1, 'inbox', {});
	assert.equal(inbox.messages[0].text, 'hello\nthere');
	assert.equal(inbox.messages[0].from, 'boss');
	assert.deepEqual((await ok(w1, 'inbox', {})).messages, []);
	// A message that reads like stdin ("-") is just text.
	await ok(boss, 'send', { to: 'w1', text: '-' });
	const dash = (await ok(w1, 'inbox', {})).messages[0];
	assert.equal(dash.text, '-');
	// A reply: to the sender by default, threaded in the reader's inbox.
	const reply = await ok(w1, 'send', { reply_to: dash.id, text: 'got it' });
	assert.equal(reply.sent[0].to, 'boss');
	const replied = (await ok(boss, 'inbox', {})).messages[0];
	assert.equal(replied.reply_to, dash.id);
	assert.deepEqual(replied.thread.map((m) => [m.id, m.from, m.text]),
		[[dash.id, 'boss', '-']]);

	// Waits.
	const wait = await ok(w1, 'wait', { for: ['the key', `#${labelled.id}`], owner: 'boss',
		remind: '1h' });
	assert.equal(typeof wait.wait, 'number');
	assert.equal(cliJson(t, ['agents']).find((a) => a.name === 'w1').state, 'waiting');
	assert.deepEqual(await ok(w1, 'resume', {}), { ended: 1 });
	const wait2 = await ok(w1, 'wait', { for: ['x'] });
	assert.deepEqual(await ok(w1, 'resume', { wait: wait2.wait }), { ended: 1 });

	// Reservations.
	assert.deepEqual(await ok(w1, 'reserve', { globs: ['docs/**', 'README.md'], ttl: '1h' }),
		{ ok: true });
	assert.equal(cliJson(t, ['reservations']).filter((r) => r.holder === 'w1' && r.source === 'reserve').length, 2);
	assert.deepEqual(await ok(w1, 'unreserve', { globs: ['README.md'] }), { released: 1 });
	assert.deepEqual(await ok(w1, 'unreserve', { all: true }), { released: 1 });

	// Status and hand-off, as the CLI gives them (times aside).
	const status = await ok(boss, 'status', { events: 3 });
	const cliStatus = cliJson(t, ['status', '--events', '3'], { as: 'boss' });
	assert.deepEqual(status.tasks, cliStatus.tasks);
	assert.equal(status.events.length, 3);
	assert.ok(status.needs_you.some((n) => n.kind === 'blocked'));
	const handoff = await ok(boss, 'handoff', {});
	assert.equal(handoff.from, 'boss');
	assert.deepEqual(handoff.claims.map((c) => c.task), cliJson(t, ['handoff'],
		{ as: 'boss' }).claims.map((c) => c.task));
	const successor = await connect(t, { as: 'boss2' });
	await ok(successor, 'ls', { limit: 1 }); // boss2 is now a live agent
	const handed = await ok(boss, 'handoff', { to: 'boss2' });
	assert.equal(handed.to, 'boss2');
	assert.equal(typeof handed.waits_moved, 'number');
	for (const c of [boss, w1, successor])
		await c.close();
};

// Bad input to every tool, and refusals the CLI makes: an error result
// with one line (the CLI's own where the CLI can say it), and not a byte
// of the ledger changed.
scenarios['bad-calls'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	const w2 = await connect(t, { as: 'w2' });
	const open = cliJson(t, ['add', 'Open task']).id;
	const held = cliJson(t, ['add', 'Held task']).id;
	cli(t, ['claim', String(held)], { as: 'w2' });
	await ok(w2, 'reserve', { globs: ['src/**'] });

	// Schema violations, for every tool.
	const { tools } = await w1.listTools();
	for (const tool of tools) {
		let r = await refused(t, w1, tool.name, { no_such_argument: 1 });
		assert.match(r.text, new RegExp(`^daicho: unknown argument 'no_such_argument' for tool ${tool.name} `));
		assert.equal(r.exit, 2);
		for (const [arg, schema] of Object.entries(tool.inputSchema.properties)) {
			const wrong = schema.type === 'string' ? 12 : 'twelve';
			r = await refused(t, w1, tool.name, { [arg]: wrong });
			assert.match(r.text, new RegExp(`^daicho: argument '${arg}' of tool ${tool.name} must be `));
		}
		for (const arg of tool.inputSchema.required || []) {
			r = await refused(t, w1, tool.name, {});
			assert.match(r.text, /^daicho: missing argument /);
		}
	}

	// What the command refuses, with the CLI's message and exit status.
	const same = async (client, as, name, args, argv, exit) => {
		const r = await refused(t, client, name, args);
		const c = cli(t, argv, { as });
		assert.equal(c.status, exit, `CLI ${argv.join(' ')}: ${c.stderr}`);
		assert.equal(r.text, c.stderr.trimEnd(), `${name} says what the CLI says`);
		assert.equal(r.exit, exit);
		return r.text;
	};
	let text = await same(w1, 'w1', 'claim', { id: held }, ['claim', String(held)], 4);
	assert.match(text, /w2/, 'a refused claim names the holder');
	await same(w1, 'w1', 'claim', { id: 9999 }, ['claim', '9999'], 3);
	await same(w1, 'w1', 'claim', {}, ['claim'], 2);
	await same(w1, 'w1', 'claim', { id: open, next: true }, ['claim', String(open), '--next'], 2);
	await same(w1, 'w1', 'claim', { id: open, label: 'x' }, ['claim', String(open), '--label', 'x'], 2);
	await same(w1, 'w1', 'claim', { next: true, lease: 'soon' }, ['claim', '--next', '--lease', 'soon'], 2);
	await same(w1, 'w1', 'prompt', { id: 9999 }, ['prompt', '9999'], 3);
	await same(w1, 'w1', 'show', { id: 0 }, ['show', '0'], 2);
	await same(w1, 'w1', 'result', { id: open }, ['result', String(open)], 3);
	await same(w1, 'w1', 'save', { id: held, text: 'mine now' }, ['save', String(held), '-f', '/dev/null'], 4);
	await same(w1, 'w1', 'save', { id: held, text: 'x', cost: -1 }, ['save', String(held), '-f', '/dev/null', '--cost', '-1'], 2);
	await same(w1, 'w1', 'report', { id: held }, ['report', String(held)], 4);
	await same(w1, 'w1', 'release', { id: held }, ['release', String(held)], 4);
	await same(w1, 'w1', 'block', { id: open, reason: 'r' }, ['block', String(open), '--reason', 'r'], 4);
	await same(w1, 'w1', 'ls', { state: 'done' }, ['ls', '--state', 'done'], 2);
	await same(w1, 'w1', 'ls', { ready: true, mine: true }, ['ls', '--ready', '--mine'], 2);
	await same(w1, 'w1', 'add', { title: 'T', after: [9999] }, ['add', 'T', '--after', '9999'], 3);
	await same(w1, 'w1', 'add', { title: 'line\nbreak' }, ['add', 'line\nbreak'], 2);
	await same(w1, 'w1', 'add', { title: 'T', priority: 1e10 }, ['add', 'T', '--priority', '10000000000'], 2);
	const batchRefusal = await refused(t, w1, 'add', { tasks: [{ title: 'ok' }, { nope: 1 }] });
	assert.match(batchRefusal.text, /line 2/);
	await refused(t, w1, 'add', { tasks: [{ key: 'a', title: 'A', after: ['b'] },
		{ key: 'b', title: 'B', after: ['a'] }] });
	await refused(t, w1, 'add', {});
	await same(w1, 'w1', 'send', { to: 'nobody', text: 'hi' }, ['send', 'nobody', 'hi'], 3);
	await same(w1, 'w1', 'send', { to: 'w2', text: '' }, ['send', 'w2', ''], 2);
	await same(w1, 'w1', 'send', { to: 'w2', text: 'x', one: true }, ['send', 'w2', 'x', '--one'], 2);
	await same(w1, 'w1', 'send', { reply_to: 999, text: 'x' }, ['send', 'x', '--reply-to', '999'], 3);
	await same(w1, 'w1', 'wait', { for: [''] }, ['wait', '--for', ''], 2);
	await same(w1, 'w1', 'wait', { for: ['x'], remind: 'later' }, ['wait', '--for', 'x', '--remind', 'later'], 2);
	await same(w1, 'w1', 'resume', {}, ['resume'], 3);
	text = await same(w1, 'w1', 'reserve', { globs: ['src/main.c'] }, ['reserve', 'src/main.c'], 4);
	assert.match(text, /w2/, 'a refused reservation names the holder');
	await same(w1, 'w1', 'unreserve', { globs: ['nothing/**'] }, ['unreserve', 'nothing/**'], 3);
	await same(w1, 'w1', 'unreserve', {}, ['unreserve'], 2);
	await same(w1, 'w1', 'status', { events: 5000 }, ['status', '--events', '5000'], 2);
	// from naming another: the server acts as w1 only (a person's CLI may).
	const foreign = await refused(t, w1, 'handoff', { from: 'nobody' });
	assert.equal(foreign.exit, 6, foreign.text);

	// Nothing ready says so.
	cli(t, ['claim', String(open)], { as: 'w2' });
	text = await same(w1, 'w1', 'claim', { next: true }, ['claim', '--next'], 3);
	assert.match(text, /ready/);
	// An argument that looks like an option is only ever a value.
	const r = await ok(w1, 'add', { title: '--batch', body: '--help' });
	assert.equal(cliJson(t, ['show', String(r.id)]).title, '--batch');
	assert.deepEqual(cliJson(t, ['prompt', String(r.id)]).body, '--help');
	// Unknown tool: a protocol error (-32602), the ledger untouched.
	const before = dump(t);
	await assert.rejects(call(w1, 'approve', { id: 1 }), /-32602|Unknown tool|unknown tool/);
	await assert.rejects(call(w1, 'gate_rm', {}), /unknown tool/);
	assert.equal(dump(t), before);
	await w1.close();
	await w2.close();
};

// Malformed JSON-RPC, as raw lines: the standard codes, and the server
// keeps serving.
scenarios['malformed'] = async (t) => {
	const s = raw(t);
	await s.request(1, 'initialize', INIT_PARAMS('2025-11-25'));
	const expect = async (line, code, id = null) => {
		s.send(line);
		const m = await s.next();
		assert.equal(m.jsonrpc, '2.0');
		assert.equal(m.error?.code, code, `${line}: ${JSON.stringify(m)}`);
		assert.equal(typeof m.error.message, 'string');
		assert.deepEqual(m.id, id);
		assert.equal(m.result, undefined);
	};
	await expect('{"jsonrpc":"2.0","id":2,"method":', -32700);
	await expect('not json at all', -32700);
	await expect('{"jsonrpc":"2.0","id":2,"method":"ping"} trailing', -32700);
	await expect('"a string"', -32600);
	await expect('42', -32600);
	await expect('null', -32600);
	await expect('[{"jsonrpc":"2.0","id":3,"method":"ping"}]', -32600);
	await expect('[]', -32600);
	await expect('{"jsonrpc":"2.0","id":4}', -32600, 4);
	await expect('{"jsonrpc":"2.0","id":5,"method":7}', -32600, 5);
	await expect('{"jsonrpc":"1.0","id":6,"method":"ping"}', -32600, 6);
	await expect('{"id":7,"method":"ping"}', -32600, 7);
	await expect('{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600);
	await expect('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600);
	await expect('{"jsonrpc":"2.0","id":8,"method":"no/such/method"}', -32601, 8);
	await expect('{"jsonrpc":"2.0","id":9,"method":"prompts/list"}', -32601, 9);
	await expect('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":[1]}', -32602, 10);
	await expect('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{}}', -32602, 11);
	await expect('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope"}}', -32602, 12);
	await expect('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"ls","arguments":[1]}}', -32602, 13);
	await expect('{"jsonrpc":"2.0","id":14,"method":"resources/read","params":{"uri":"daicho://nope"}}', -32602, 14);
	await expect('{"jsonrpc":"2.0","id":15,"method":"logging/setLevel","params":{"level":"loud"}}', -32602, 15);
	await expect('{"jsonrpc":"2.0","id":"s","method":"x"}', -32601, 's');
	// Notifications are never answered, known or not; a response is ignored.
	s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
	s.send('{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}');
	s.send('{"jsonrpc":"2.0","id":99,"result":{}}');
	s.send('');
	// Still serving, and the next answer is to the next request.
	const p = await s.request(20, 'ping');
	assert.deepEqual(p, { jsonrpc: '2.0', id: 20, result: {} });
	const r = await s.request(21, 'tools/call', { name: 'ls', arguments: {} });
	assert.equal(r.result.isError, false);
	// A message split across writes, and CRLF line ends.
	s.child.stdin.write('{"jsonrpc":"2.0",');
	await new Promise((res) => setTimeout(res, 50));
	s.child.stdin.write('"id":22,"method":"ping"}\r\n');
	assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 22, result: {} });
	assert.equal(await s.close(), 0, 'end of input ends the server, exit 0');
	for (const line of s.lines)
		assert.equal(JSON.parse(line).jsonrpc, '2.0', 'nothing but protocol on stdout');
};

// 16 SDK clients (16 server processes) race for 500 tasks: every task is
// claimed by exactly one.
scenarios['race'] = async (t) => {
	const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ title: `task ${i}` }))
		.join('\n') + '\n';
	const added = cli(t, ['add', '--batch', '-', '--json'], { input: lines });
	assert.equal(added.status, 0, added.stderr);
	const clients = await Promise.all(Array.from({ length: 16 },
		(_, i) => connect(t, { as: `racer${i}` })));
	const won = await Promise.all(clients.map(async (client) => {
		const mine = [];
		for (;;) {
			const r = await call(client, 'claim', { next: true });
			if (r.isError) {
				assert.match(r.content[0].text, /ready/, r.content[0].text);
				return mine;
			}
			mine.push(r.structuredContent.id);
		}
	}));
	const all = won.flat();
	assert.equal(all.length, 500, 'all 500 claimed');
	assert.equal(new Set(all).size, 500, 'none claimed twice');
	const tasks = cliJson(t, ['ls']);
	for (const [i, ids] of won.entries())
		for (const id of ids)
			assert.equal(tasks.find((x) => x.id === id).owner, `racer${i}`);
	assert.ok(tasks.every((x) => x.state === 'claimed'));
	await Promise.all(clients.map((c) => c.close()));
};

// Who the server acts as: never the human; a client session's agent;
// every call a heartbeat; an ended session's agent refused to write.
scenarios['identity'] = async (t) => {
	let r = spawnSync(DAICHO, ['mcp'], { cwd: t.dir, env: t.env(), input: '' , encoding: 'utf8' });
	assert.equal(r.status, 2);
	assert.equal(r.stdout, '');
	assert.match(r.stderr, /^daicho: no agent to act as .*--as NAME.*\n$/);
	// DAICHO_AGENT names it.
	let c = await connect(t, { env: { DAICHO_AGENT: 'named' } });
	await ok(c, 'ls', {});
	assert.ok(cliJson(t, ['agents']).some((a) => a.name === 'named'));
	await c.close();
	// Claude Code's session variable: the session's agent.
	const session = '5e2b8f10-1111-2222-3333-444455556666';
	c = await connect(t, { env: { CLAUDE_CODE_SESSION_ID: session } });
	const id = cliJson(t, ['add', 'A task']).id;
	assert.equal((await ok(c, 'claim', { id })).id, id);
	const agent = cliJson(t, ['agents']).find((a) => a.session_id === session);
	assert.ok(agent, 'the session agent is registered');
	assert.equal(agent.kind, 'claude');
	assert.equal(cliJson(t, ['show', String(id)]).owner, agent.name);
	// A read-only call is a heartbeat too.
	const seen = () => cliJson(t, ['agents']).find((a) => a.name === agent.name).last_seen_ms;
	const before = seen();
	await new Promise((res) => setTimeout(res, 1100));
	await ok(c, 'ls', { limit: 1 });
	assert.ok(seen() > before, 'ls renewed last seen');
	// The session ends (its SessionEnd hook): writes are refused, clearly.
	const end = cli(t, ['hook', 'claude', 'session-end'], { env: { CLAUDE_CODE_SESSION_ID: session },
		input: JSON.stringify({ session_id: session, hook_event_name: 'SessionEnd', cwd: t.dir }) });
	assert.equal(end.status, 0, end.stderr);
	const refusal = await refused(t, c, 'report', { id });
	assert.match(refusal.text, /ended/);
	await ok(c, 'show', { id });
	await c.close();
};

// Notifications: new messages are announced while idle (logging and the
// subscribed inbox resource), and every tool result tells of unread ones.
scenarios['notifications'] = async (t) => {
	const { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } =
		await import('@modelcontextprotocol/sdk/types.js');
	const c = await connect(t, { as: 'listener' });
	const logged = [], updated = [];
	c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logged.push(n.params));
	c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params));
	const { resources } = await c.listResources();
	assert.deepEqual(resources.map((x) => x.uri), ['daicho://inbox']);
	await c.subscribeResource({ uri: 'daicho://inbox' });
	await ok(c, 'ls', {}); // the agent is now known (and registered)
	const sent = cli(t, ['send', 'listener', 'please look at #1'], { as: 'boss' });
	assert.equal(sent.status, 0, sent.stderr);
	const deadline = Date.now() + 6000;
	while ((logged.length === 0 || updated.length === 0) && Date.now() < deadline)
		await new Promise((res) => setTimeout(res, 100));
	assert.equal(logged.length, 1, 'one logging notification');
	assert.equal(logged[0].level, 'notice');
	assert.equal(logged[0].data.text, 'please look at #1');
	assert.equal(logged[0].data.from, 'boss');
	assert.deepEqual(updated, [{ uri: 'daicho://inbox' }]);
	// The resource reads without marking read.
	const read = await c.readResource({ uri: 'daicho://inbox' });
	assert.equal(JSON.parse(read.contents[0].text).messages[0].text, 'please look at #1');
	// A tool result says so too, for clients that drop notifications.
	const r = await call(c, 'ls', { limit: 1 });
	assert.match(r.content.at(-1).text, /1 unread message/);
	assert.equal((await ok(c, 'inbox', {})).messages.length, 1);
	const after = await call(c, 'ls', { limit: 1 });
	assert.equal(after.content.length, 1, 'read: no more note');
	// Not announced twice; a second message is.
	await new Promise((res) => setTimeout(res, 2500));
	assert.equal(logged.length, 1);
	cli(t, ['send', 'listener', 'second'], { as: 'boss' });
	await ok(c, 'ls', { limit: 1 }); // after a call, at once
	await new Promise((res) => setTimeout(res, 200));
	assert.equal(logged.length, 2);
	assert.equal(logged[1].data.text, 'second');
	// With the level raised above notice, no more logging.
	await c.setLoggingLevel('warning');
	cli(t, ['send', 'listener', 'third'], { as: 'boss' });
	await ok(c, 'ls', { limit: 1 });
	await new Promise((res) => setTimeout(res, 200));
	assert.equal(logged.length, 2);
	assert.equal(updated.length, 3);
	await c.unsubscribeResource({ uri: 'daicho://inbox' });
	await c.close();
};


await runScenario(scenarios, 'run.js');
