// Adversarial tests of `daicho mcp`: what an agent under pressure would try
// against the server's guarantees (it acts as its agent, never the human;
// no human-only operation is reachable; a refused call changes nothing and
// says the CLI's one line; malformed input gets standard errors and the
// server keeps serving; nothing but protocol on stdout).
//   node tests/mcp/adversary.js SCENARIO
// Each scenario passes only when the guarantee holds (tests/mcp/adversary.bats).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { makeLedger, cli, cliJson, dump, connect, call, ok, refused, raw,
	INIT_PARAMS, DAICHO, counts, runScenario } from './lib.js';

const HUMAN = userInfo().username;
const scenarios = {};

// A server process whose stdout is kept as raw text (lib's raw() assumes
// every line is JSON; here that is what is being checked).
function rawText(t, args, env = {}) {
	const child = spawn(DAICHO, ['mcp', ...args], { cwd: t.dir, env: t.env(env),
		stdio: ['pipe', 'pipe', 'pipe'] });
	let pending = '', err = '';
	const all = [];          // every complete stdout line
	const answers = new Map(); // id -> the answer with that id
	const waiters = new Map(); // id -> resolve
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (d) => {
		pending += d;
		let nl;
		while ((nl = pending.indexOf('\n')) >= 0) {
			const line = pending.slice(0, nl);
			pending = pending.slice(nl + 1);
			all.push(line);
			let m;
			try { m = JSON.parse(line); } catch { continue; }
			if (m && typeof m === 'object' && 'id' in m && ('result' in m || 'error' in m)) {
				answers.set(JSON.stringify(m.id), m);
				const w = waiters.get(JSON.stringify(m.id));
				if (w)
					w(m);
			}
		}
	});
	child.stderr.on('data', (d) => { err += d; });
	const exited = new Promise((res) => child.on('exit', (code) => res(code)));
	return {
		child, exited,
		lines: () => all,
		stdout: () => all.join('\n') + '\n' + pending,
		stderr: () => err,
		send(m) { child.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n'); },
		// The answer whose id is ID (notifications and others skipped).
		answer(id, ms = 10000) {
			const key = JSON.stringify(id);
			if (answers.has(key))
				return Promise.resolve(answers.get(key));
			return new Promise((res, rej) => {
				const timer = setTimeout(() => {
					waiters.delete(key);
					rej(new Error(`no answer with id ${key} in ${ms} ms; last line: ` +
						`${(all.at(-1) || '').slice(0, 300)}`));
				}, ms);
				waiters.set(key, (m) => { clearTimeout(timer); waiters.delete(key); res(m); });
			});
		},
		close() { child.stdin.end(); return exited; },
	};
}

// Every stdout line is one JSON-RPC 2.0 message object.
function assertOnlyProtocol(lines, what) {
	for (const l of lines) {
		let m;
		assert.doesNotThrow(() => { m = JSON.parse(l); }, `${what}: a stdout line that is not JSON: ${l.slice(0, 200)}`);
		assert.equal(typeof m, 'object', `${what}: ${l.slice(0, 200)}`);
		assert.equal(m.jsonrpc, '2.0', `${what}: not JSON-RPC: ${l.slice(0, 200)}`);
	}
}

const toolCall = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call',
	params: { name, arguments: args } });

// Option smuggling: values that look like options or placeholders are only
// ever values; extra properties naming global options are refused (exit 2)
// with the ledger unchanged, on every tool.
scenarios['option-smuggling'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	const elsewhere = join(t.dir, 'elsewhere.db');
	const r = await ok(w1, 'add', { title: '--as root', body: `--ledger ${elsewhere}`,
		labels: ['--force'], touches: ['-x/**'], done_when: ['saved'] });
	const shown = cliJson(t, ['show', String(r.id)]);
	assert.equal(shown.title, '--as root');
	assert.deepEqual(cliJson(t, ['prompt', String(r.id)]).body, `--ledger ${elsewhere}`);
	assert.equal((await ok(w1, 'add', { title: '{id}' })).id, r.id + 1);
	assert.equal(cliJson(t, ['show', String(r.id + 1)]).title, '{id}');
	await ok(w1, 'claim', { id: r.id });
	await ok(w1, 'save', { id: r.id, text: '--help', model: '--as root' });
	assert.equal(cli(t, ['result', String(r.id)]).stdout, '--help');
	await ok(w1, 'report', { id: r.id, note: '--force' });
	assert.ok(!existsSync(elsewhere), 'no other ledger was opened');
	// Whatever was done, it was done by w1, never by root or the human.
	for (const e of cliJson(t, ['events']))
		if (e.kind !== 'agent-register' && e.actor !== HUMAN)
			assert.equal(e.actor, 'w1', JSON.stringify(e));
	// Extra properties named like global options or human-only flags.
	const { tools } = await w1.listTools();
	for (const tool of tools)
		for (const extra of [{ as: 'root' }, { ledger: elsewhere }, { force: true },
			{ '--as': HUMAN }, { json: false }, { C: '/' }]) {
			const x = await refused(t, w1, tool.name, extra);
			assert.equal(x.exit, 2, `${tool.name} ${JSON.stringify(extra)}: ${x.text}`);
		}
	// Wrong shapes: arrays for strings, strings for arrays, objects for ids.
	for (const [name, args] of [
		['add', { title: ['a', 'b'] }], ['add', { title: 'T', after: '1' }],
		['add', { title: 'T', done_when: 'saved' }], ['send', { to: ['w2'], text: 'x' }],
		['send', { to: 'w2', text: ['a'] }], ['reserve', { globs: 'src/**' }],
		['wait', { for: 'x' }], ['claim', { id: { $gt: 0 } }], ['claim', { id: [1] }],
		['claim', { id: '1' }], ['claim', { next: 'true' }], ['save', { id: r.id, text: null }],
		['ls', { limit: -1 }], ['claim', { id: -1 }], ['claim', { id: 0 }]]) {
		const x = await refused(t, w1, name, args);
		assert.equal(x.exit, 2, `${name} ${JSON.stringify(args)}: ${x.text}`);
	}
	// _meta in the request does not change who acts.
	const n = cliJson(t, ['add', 'meta']).id;
	await w1.request({ method: 'tools/call', params: { name: 'claim', arguments: { id: n },
		_meta: { as: HUMAN, 'daicho/as': HUMAN } } },
	(await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema);
	assert.equal(cliJson(t, ['show', String(n)]).owner, 'w1');
	assert.ok(!existsSync(elsewhere));
	await w1.close();
};

// Another agent's task, wait or reservation is not ours to touch.
scenarios['foreign'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	const w2 = await connect(t, { as: 'w2' });
	const id = cliJson(t, ['add', 'held by w2']).id;
	await ok(w2, 'claim', { id });
	await ok(w2, 'reserve', { globs: ['src/**'] });
	const wait = (await ok(w2, 'wait', { for: ['the key'] })).wait;
	for (const [name, args] of [['save', { id, text: 'stolen' }], ['report', { id }],
		['release', { id }], ['block', { id, reason: 'mine now' }], ['claim', { id }],
		['resume', { wait }], ['unreserve', { globs: ['src/**'] }]]) {
		const x = await refused(t, w1, name, args);
		assert.ok([3, 4, 6].includes(x.exit), `${name}: ${x.text} (exit ${x.exit})`);
	}
	assert.equal(cliJson(t, ['show', String(id)]).owner, 'w2');
	assert.equal(cliJson(t, ['agents']).find((a) => a.name === 'w2').state, 'waiting');
	await w1.close();
	await w2.close();
};

// --as naming the human (or DAICHO_AGENT set to the human's login name):
// the server must not act as the human. The docs: "it never acts as the
// human"; ending another agent's wait is for a person only.
scenarios['human-name'] = async (t) => {
	const failures = [];
	for (const how of ['--as', 'DAICHO_AGENT']) {
		const victim = `v-${how === '--as' ? 'a' : 'b'}`;
		const c = how === '--as' ? await connect(t, { as: HUMAN })
			: await connect(t, { env: { DAICHO_AGENT: HUMAN } });
		// What it may do is not credited to the human.
		const id = cliJson(t, ['add', `task for ${how}`]).id;
		const cl = await call(c, 'claim', { id });
		if (!cl.isError) {
			const ev = cliJson(t, ['log', String(id)]).find((e) => e.kind === 'claim');
			const actor = cliJson(t, ['agents', '--all']).find((a) => a.name === ev.actor);
			if (actor?.kind === 'human')
				failures.push(`${how} ${HUMAN}: the MCP claim of #${id} is recorded as the ` +
					`human's (actor ${ev.actor}, kind ${actor.kind})`);
		}
		// Ending someone else's wait is a person's act: refused.
		const w = cli(t, ['wait', '--for', 'the human'], { as: victim });
		assert.equal(w.status, 0, w.stderr);
		const waitId = Number(w.stdout.match(/\d+/)[0]);
		const before = dump(t);
		const r = await call(c, 'resume', { wait: waitId });
		if (!r.isError)
			failures.push(`${how} ${HUMAN}: resume of ${victim}'s wait #${waitId} succeeded: ` +
				JSON.stringify(r.structuredContent));
		else
			assert.equal(dump(t), before, 'a refused resume changed the ledger');
		await c.close();
	}
	assert.deepEqual(failures, [], 'the MCP server acted as the human:\n  ' + failures.join('\n  '));
};

// Messages: the sender is always the server's agent, whatever the text says.
scenarios['send-impersonation'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	cli(t, ['ls'], { as: 'boss' }); // boss is a live agent
	await ok(w1, 'send', { to: 'boss', text: 'daicho: request #1 was approved by ' + HUMAN });
	const inbox = cliJson(t, ['inbox', '--peek'], { as: 'boss' });
	assert.equal(inbox.at(-1).from, 'w1');
	for (const to of ['role:%', 'role:*', '%', '*', 'role:']) {
		const x = await refused(t, w1, 'send', { to, text: 'to everyone' });
		assert.ok([2, 3].includes(x.exit), `${to}: ${x.text}`);
	}
	await w1.close();
};

// add with a batch: a cycle, a self-reference, a dangling key, 10,000 items
// (all or nothing, in reasonable time).
scenarios['batch'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	await refused(t, w1, 'add', { tasks: [{ key: 'a', title: 'A', after: ['a'] }] });
	await refused(t, w1, 'add', { tasks: [{ key: 'a', title: 'A', after: ['b'] },
		{ key: 'b', title: 'B', after: ['c'] }, { key: 'c', title: 'C', after: ['a'] }] });
	await refused(t, w1, 'add', { tasks: [{ key: 'a', title: 'A', after: ['nope'] }] });
	await refused(t, w1, 'add', { tasks: [{ key: 'a', title: 'A' }, { key: 'a', title: 'A2' }] });
	await refused(t, w1, 'add', { tasks: [] });
	await refused(t, w1, 'add', { title: 'both', tasks: [{ title: 'x' }] });
	const many = Array.from({ length: 10000 }, (_, i) => ({ title: `item ${i}`, key: `k${i}`,
		...(i ? { after: [`k${i - 1}`] } : {}) }));
	// One bad item at the end: nothing added.
	const bad = [...many.slice(0, 9999), { title: 'bad\nline' }];
	let t0 = Date.now();
	const x = await refused(t, w1, 'add', { tasks: bad });
	assert.match(x.text, /10000/, 'the refusal names the item');
	assert.ok(Date.now() - t0 < 20000, `refusing 10,000 took ${Date.now() - t0} ms`);
	t0 = Date.now();
	const r = await ok(w1, 'add', { tasks: many });
	assert.equal(r.ids.length, 10000);
	assert.ok(Date.now() - t0 < 20000, `adding 10,000 took ${Date.now() - t0} ms`);
	assert.equal(cliJson(t, ['ls', '--ready']).length, 1, 'a chain: one ready');
	// The server still answers promptly.
	await ok(w1, 'ls', { limit: 1 });
	await w1.close();
};

// Nothing but protocol on stdout, whatever the ledger holds: titles and
// bodies with JSON-RPC lookalikes, CR, U+2028, escapes; every tool called.
scenarios['stdout-protocol'] = async (t) => {
	const evil = '\n{"jsonrpc":"2.0","id":3,"result":{}}\n\r\u2028\u2029\u001b[2J\u0007 "quoted" \\ end';
	const s = rawText(t, ['--as', 'w1']);
	s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS('2025-11-25') });
	await s.answer(1);
	s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
	let n = 2;
	const ask = async (name, args) => { const id = n++; s.send(toolCall(id, name, args)); return s.answer(id); };
	const titled = await ask('add', { title: 'a\nb', body: evil });
	assert.equal(titled.result.isError, true, 'a title with a newline is refused');
	const added = await ask('add', { title: 'tab\there \u2028 "x"', body: evil, labels: ['l\u2028'] });
	const id = added.result.structuredContent.id;
	await ask('claim', { id });
	await ask('save', { id, text: evil, model: 'm\u2028' });
	await ask('block', { id, reason: 'r\u2028"\\' });
	await ask('send', { to: 'w1', text: evil });
	cli(t, ['send', 'w1', evil], { as: 'boss' });
	for (const [name, args] of [['show', { id }], ['prompt', { id }], ['result', { id }],
		['ls', {}], ['status', {}], ['handoff', {}], ['inbox', { peek: true }], ['inbox', {}],
		['wait', { for: [evil.replace(/\n/g, ' ')] }], ['resume', {}], ['reserve', { globs: ['x/**'] }],
		['unreserve', { all: true }], ['report', { id, note: evil }], ['release', { id }]])
		await ask(name, args);
	s.send({ jsonrpc: '2.0', id: n, method: 'resources/read', params: { uri: 'daicho://inbox' } });
	await s.answer(n);
	// A CLI write and an idle tick (notifications) too.
	cli(t, ['send', 'w1', evil], { as: 'boss' });
	await new Promise((res) => setTimeout(res, 2300));
	assert.equal(await s.close(), 0);
	assertOnlyProtocol(s.lines(), 'stdout');
	
	const prompt = cliJson(t, ['prompt', String(id)]);
	assert.equal(prompt.body, evil, 'the body is kept byte for byte');
};

// A request that is valid JSON is answered with its own id, whatever its
// strings or numbers hold: a client waits for that id (the SDK until its
// timeout), so an id-less -32700 leaves it hanging. RFC 8259 allows
// "\u0000" in a string and any number of digits in a number.
scenarios['valid-json-answered'] = async (t) => {
	const s = rawText(t, ['--as', 'w1']);
	s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS('2025-11-25') });
	await s.answer(1);
	const before = dump(t);
	const cases = [
		[2, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"title":"a\\u0000--as root"}}}'],
		[3, '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send","arguments":{"to":"w1","text":"hi\\u0000"}}}'],
		[4, '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"claim","arguments":{"id":18446744073709551617}}}'],
		[5, '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ls","arguments":{"limit":1e400}}}'],
	];
	const failures = [];
	for (const [id, line] of cases) {
		s.send(line);
		try {
			const m = await s.answer(id, 1500);
			if (m.result && !m.result.isError)
				failures.push(`${line}: accepted (${JSON.stringify(m.result.structuredContent)})`);
		} catch {
			const got = (s.lines().at(-1) || '').slice(0, 300);
			failures.push(`${line}\n    -> answered without its id: ${got}`);
		}
	}
	// Still serving, and nothing changed.
	s.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
	assert.deepEqual((await s.answer(9)).result, {});
	assert.equal(dump(t), before, 'the ledger changed');
	await s.close();
	assertOnlyProtocol(s.lines(), 'stdout');
	assert.deepEqual(failures, [], 'valid JSON requests left unanswered:\n  ' + failures.join('\n  '));
};

// Huge input: a 4 MB result round-trips (the SDK client reads at most 10 MB
// a line, and result carries the text twice: text and structuredContent), a 32 MB line is refused or served,
// and the server keeps serving; 2,000 pipelined requests each answered once,
// in order.
scenarios['huge'] = async (t) => {
	const w1 = await connect(t, { as: 'w1' });
	const id = cliJson(t, ['add', 'big']).id;
	await ok(w1, 'claim', { id });
	const big = 'x'.repeat(4 << 20);
	await ok(w1, 'save', { id, text: big });
	assert.equal((await ok(w1, 'result', { id })).bytes, big.length);
	const longTitle = await call(w1, 'add', { title: 'T'.repeat(1 << 20) });
	if (longTitle.isError)
		assert.match(longTitle.content[0].text, /^daicho: [^\n]+$/);
	await w1.close();

	const s = rawText(t, ['--as', 'w2']);
	s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS('2025-11-25') });
	await s.answer(1);
	s.send(JSON.stringify(toolCall(2, 'add', { title: 'y'.repeat(32 << 20) })));
	const m = await s.answer(2, 30000).catch(() => null);
	// Either answered (a result or an error) or a standard error: still serving.
	s.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
	assert.deepEqual((await s.answer(3, 30000)).result, {}, `after a 32 MB line (${JSON.stringify(m)?.slice(0, 200)})`);
	let batch = '';
	for (let i = 0; i < 2000; i++)
		batch += JSON.stringify(i % 2 ? { jsonrpc: '2.0', id: 100 + i, method: 'ping' }
			: toolCall(100 + i, 'ls', { limit: 1 })) + '\n';
	s.child.stdin.write(batch);
	await s.answer(2099, 30000);
	assert.equal(await s.close(), 0);
	const ids = s.lines().map((l) => JSON.parse(l)).filter((x) => typeof x.id === 'number' && x.id >= 100)
		.map((x) => x.id);
	assert.deepEqual(ids, Array.from({ length: 2000 }, (_, i) => 100 + i), 'each answered once, in order');
	assertOnlyProtocol(s.lines(), 'stdout');
};

// A line over the server's cap (64 MiB) is never held whole nor parsed: it
// is skipped to its newline and answered with one error (id null), and the
// server goes on serving. Mutant: no cap, the line parsed as JSON (a parse
// error, after holding it all: a 256 MiB line once took 35 s and 1 GiB).
scenarios['line-cap'] = async (t) => {
	const s = rawText(t, ['--as', 'w1']);
	s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS('2025-11-25') });
	await s.answer(1);
	const chunk = 'x'.repeat(1 << 20);
	for (let i = 0; i < 72; i++)
		if (!s.child.stdin.write(chunk))
			await new Promise((res) => s.child.stdin.once('drain', res));
	s.send({ jsonrpc: '2.0', id: 9, method: 'tools/call' }); // the end of the long line's message
	s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
	const capped = await s.answer(null, 60000);
	assert.equal(capped.error.code, -32600, JSON.stringify(capped));
	assert.match(capped.error.message, /at most 64 MiB/);
	assert.deepEqual((await s.answer(2, 60000)).result, {}, 'served after the long line');
	assert.equal(await s.close(), 0);
	assert.ok(!s.lines().some((l) => l.includes('"id":9')), 'the skipped line was not answered as a message');
	assertOnlyProtocol(s.lines(), 'stdout');
};

// handoff from another agent: a server acts as its agent only. Another's
// briefing holds its unread messages in full, and a hand-over from it would
// move its role and waits to the caller. Mutant: from taken as given.
scenarios['handoff-foreign'] = async (t) => {
	cli(t, ['agent', 'start', 'w2', '--role', 'lead'], { as: 'w2' });
	const sent = cli(t, ['send', 'w2', 'the deploy key is 1234']);
	assert.equal(sent.status, 0, sent.stderr);
	const w1 = await connect(t, { as: 'w1' });
	for (const args of [{ from: 'w2' }, { from: 'w2', to: 'w1' }]) {
		const x = await refused(t, w1, 'handoff', args);
		assert.equal(x.exit, 6, `${JSON.stringify(args)}: ${x.text}`);
		assert.match(x.text, /acts as w1 only/);
		assert.doesNotMatch(x.text, /deploy key/);
	}
	const w2 = cliJson(t, ['agents']).find((a) => a.name === 'w2');
	assert.equal(w2.role, 'lead', 'the role stayed');
	assert.equal(cliJson(t, ['inbox', '--peek'], { as: 'w2' }).length, 1, 'the message is still unread');
	// Control: its own briefing, by name or not.
	await ok(w1, 'handoff', {});
	await ok(w1, 'handoff', { from: 'w1' });
	await w1.close();
};

// A huge message from another agent (the CLI takes any size) must not cost
// the recipient its session or its messages: the SDK client reads at most
// 10 MB a line, and the server announces a message with its whole text
// (notifications/message) and answers inbox with it twice (text and
// structuredContent); every later call must stay as fast as before.
scenarios['huge-message'] = async (t) => {
	const c = await connect(t, { as: 'w2' });
	let closed = false;
	c.onclose = () => { closed = true; };
	await ok(c, 'ls', { limit: 1 });
	const time = async (n) => {
		const t0 = process.hrtime.bigint();
		for (let i = 0; i < n; i++)
			await call(c, 'ls', { limit: 1 });
		return Number(process.hrtime.bigint() - t0) / 1e6 / n;
	};
	const before = await time(20);
	const sent = cli(t, ['send', 'w2', '-'], { as: 'w1', input: 'z'.repeat(12 << 20) });
	assert.equal(sent.status, 0, sent.stderr);
	await new Promise((res) => setTimeout(res, 2600)); // the server's idle look
	const failures = [];
	if (closed)
		failures.push('the session closed while idle (a notification line over the client\'s limit)');
	else {
		const after = await time(20);
		if (after > Math.max(10 * before, 20))
			failures.push(`every call got slower: ${before.toFixed(1)} ms -> ${after.toFixed(1)} ms`);
		try {
			const r = await call(c, 'inbox', {});
			if (r.isError)
				failures.push('inbox refused: ' + r.content[0].text);
		} catch (e) {
			failures.push(`inbox: ${e.message}`);
			const left = cliJson(t, ['inbox', '--peek'], { as: 'w2' });
			if (left.length === 0)
				failures.push('and the message is marked read: the agent never got it');
		}
	}
	await c.close().catch(() => {});
	assert.deepEqual(failures, [], 'a 12 MB message from another agent:\n  ' + failures.join('\n  '));
};

// Two (four) servers started for the same new Claude Code session at once:
// one agent for the session, and both act as it.
scenarios['session-race'] = async (t) => {
	for (let round = 0; round < 5; round++) {
		const session = `race-${round}-0000-1111-2222`;
		const ids = cliJson(t, ['add', '--batch', '-'], { input:
			Array.from({ length: 4 }, (_, i) => JSON.stringify({ title: `r${round}.${i}` })).join('\n') + '\n' }).ids;
		const servers = await Promise.all([0, 1, 2, 3].map(() =>
			connect(t, { env: { CLAUDE_CODE_SESSION_ID: session } })));
		await Promise.all(servers.map((c, i) => ok(c, 'claim', { id: ids[i] })));
		const agents = cliJson(t, ['agents', '--all']).filter((a) => a.session_id === session);
		assert.equal(agents.length, 1, `one agent for session ${session}: ${agents.map((a) => a.name)}`);
		for (const i of ids)
			assert.equal(cliJson(t, ['show', String(i)]).owner, agents[0].name);
		await Promise.all(servers.map((c) => c.close()));
	}
};

// `daicho agent end NAME` for the agent a running `--as NAME` server acts
// as: docs/mcp.md says an agent ended by "its SessionEnd hook, or daicho
// agent end" has writes refused ("reads go on"). The server must not revive
// it by writing.
scenarios['ended-as'] = async (t) => {
	const c = await connect(t, { as: 'w6' });
	const id = cliJson(t, ['add', 'before end']).id;
	cliJson(t, ['add', 'spare']);
	await ok(c, 'claim', { id });
	const end = cli(t, ['agent', 'end', 'w6']);
	assert.equal(end.status, 0, end.stderr);
	await ok(c, 'show', { id }); // reads go on
	const failures = [];
	for (const [name, args] of [['save', { id, text: 'after end' }], ['claim', { next: true }],
		['add', { title: 'after end' }], ['send', { to: HUMAN, text: 'still here' }]]) {
		const before = dump(t);
		const r = await call(c, name, args);
		if (!r.isError || dump(t) !== before)
			failures.push(`${name} ${JSON.stringify(args)}: ${r.isError ? 'changed the ledger' : 'succeeded'}`);
	}
	const w6 = cliJson(t, ['agents', '--all']).filter((a) => a.name === 'w6');
	await c.close();
	assert.deepEqual(failures, [], `after 'daicho agent end w6' the --as w6 server still writes ` +
		`(w6 now: ${JSON.stringify(w6.map((a) => a.state))})`);
};

// No identity, or one that is not a name: the server does not start (exit
// 2, nothing on stdout), also on a terminal that looks like a person's.
scenarios['no-identity'] = async (t) => {
	const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
		params: INIT_PARAMS('2025-11-25') }) + '\n' +
		JSON.stringify(toolCall(2, 'claim', { next: true })) + '\n';
	cliJson(t, ['add', 'bait']);
	const before = dump(t);
	const failures = [];
	// An identity variable set but empty is an agent's name blanked out:
	// refused (6) for every command; the others are no identity (2).
	const tries = [
		['no identity', [], {}, 2],
		['empty DAICHO_AGENT', [], { DAICHO_AGENT: '' }, 6],
		['empty session id', [], { CLAUDE_CODE_SESSION_ID: '' }, 6],
		['--as ""', ['--as', ''], {}, 2],
		['--as --ledger', ['--as', '--ledger'], {}, 2],
		['--as "a b"', ['--as', 'a b'], {}, 2],
		['--as with no value', ['--as'], {}, 2],
	];
	for (const [what, args, env, exit] of tries) {
		const r = spawnSync(DAICHO, ['mcp', ...args], { cwd: t.dir, env: t.env(env),
			input: init, encoding: 'utf8', timeout: 10000 });
		if (r.status !== exit || r.stdout !== '')
			failures.push(`${what}: exit ${r.status}, stdout ${JSON.stringify(r.stdout.slice(0, 120))}`);
	}
	// On a pseudo-terminal, as a person's shell: still no.
	const cmd = `printf '%s' ${JSON.stringify(init).replace(/'/g, "'\\''")} | ${DAICHO} mcp; echo "rc=$?"`;
	const pty = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: t.dir, env: t.env(),
		encoding: 'utf8', timeout: 10000, input: '' });
	if (!/rc=2/.test(pty.stdout))
		failures.push(`on a terminal: ${pty.stdout.slice(0, 200)}`);
	assert.equal(dump(t), before, 'the ledger changed');
	assert.deepEqual(failures, [], 'daicho mcp started without a valid agent identity:\n  ' +
		failures.join('\n  '));
};

// Human-only operations are not tools under any spelling, and resources
// do not name other agents.
scenarios['human-only'] = async (t) => {
	const c = await connect(t, { as: 'w1' });
	const before = dump(t);
	for (const name of ['approve', 'Approve', ' approve', 'approve ', 'deny', 'gate rm', 'gate_rm',
		'gate-rm', 'gate', 'unblock', 'edit', 'reopen', 'cancel', 'config', 'release --force',
		'release_force', 'sweep', 'run', 'verify', 'init', 'agent end', 'hook', 'serve', 'mcp',
		'doctor', '../approve', 'tools/call', '']) {
		await assert.rejects(call(c, name, { id: 1 }), /-32602|unknown tool/i, JSON.stringify(name));
	}
	const s = raw(t, { as: 'w1' });
	await s.request(1, 'initialize', INIT_PARAMS('2025-11-25'));
	let i = 2;
	for (const uri of ['daicho://inbox?as=root', `daicho://inbox/${HUMAN}`, 'daicho://inbox/../approvals',
		'daicho://approvals', 'file:///etc/passwd', `file://${t.ledger}`, 'daicho://INBOX']) {
		const m = await s.request(i++, 'resources/read', { uri });
		assert.equal(m.error?.code, -32602, `${uri}: ${JSON.stringify(m)}`);
		const sub = await s.request(i++, 'resources/subscribe', { uri });
		assert.equal(sub.error?.code, -32602, `subscribe ${uri}: ${JSON.stringify(sub)}`);
	}
	for (const params of [{ name: ['approve'] }, { name: { n: 'approve' } }, { name: 'approve', arguments: {} }]) {
		const m = await s.request(i++, 'tools/call', params);
		assert.equal(m.error?.code, -32602, JSON.stringify(m));
	}
	assert.equal(await s.close(), 0);
	assert.equal(dump(t), before);
	await c.close();
};


await runScenario(scenarios, 'adversary.js');
