// Helpers for the protocol tests of `daicho mcp`: a ledger per test, the
// official SDK client connected to a server process, raw JSON-RPC lines
// for what the SDK would never send, the CLI for comparison, and a dump of
// the ledger to prove a refused call changed nothing.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DAICHO = process.env.DAICHO_BIN || join(ROOT, 'daicho');

// The variables that would give a process an agent identity.
const IDENTITY = ['DAICHO_AGENT', 'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID',
	'GEMINI_SESSION_ID', 'CLAUDECODE', 'GEMINI_CLI', 'CODEX_SANDBOX',
	'CLAUDE_CODE_CHILD_SESSION'];

// A fresh directory with a ledger; env() is the environment for daicho.
export function makeLedger() {
	const dir = mkdtempSync(join(process.env.BATS_TEST_TMPDIR || tmpdir(), 'mcp.'));
	const ledger = join(dir, 'ledger.db');
	const base = { ...process.env, DAICHO_LEDGER: ledger, NO_COLOR: '1', HOME: dir,
		GIT_CEILING_DIRECTORIES: dirname(dir) };
	for (const v of IDENTITY)
		delete base[v];
	const t = {
		dir, ledger,
		env: (extra = {}) => ({ ...base, ...extra }),
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
	const r = cli(t, ['init']);
	assert.equal(r.status, 0, r.stderr);
	return t;
}

// Run the CLI: {status, stdout, stderr}.
export function cli(t, args, { as, env = {}, input } = {}) {
	const argv = as ? ['--as', as, ...args] : args;
	const r = spawnSync(DAICHO, argv, { cwd: t.dir, env: t.env(env), input,
		encoding: 'utf8' });
	return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The CLI's --json output, parsed (asserting success).
export function cliJson(t, args, opts) {
	const r = cli(t, [...args, '--json'], opts);
	assert.equal(r.status, 0, `daicho ${args.join(' ')}: ${r.stderr}`);
	return JSON.parse(r.stdout);
}

// The whole ledger as SQL text: equal dumps, nothing changed.
export function dump(t) {
	const r = spawnSync('sqlite3', [t.ledger, '.dump'], { encoding: 'utf8' });
	assert.equal(r.status, 0, r.stderr);
	return r.stdout;
}

// An SDK client connected to `daicho mcp` (as NAME when given).
export async function connect(t, { as, env = {}, args = [] } = {}) {
	const transport = new StdioClientTransport({
		command: DAICHO,
		args: ['mcp', ...(as ? ['--as', as] : []), ...args],
		env: t.env(env),
		cwd: t.dir,
		stderr: 'pipe',
	});
	const client = new Client({ name: 'daicho-tests', version: '1.0.0' });
	await client.connect(transport);
	client.stderrText = '';
	transport.stderr?.on('data', (d) => { client.stderrText += d; });
	return client;
}

// How many tool calls the scenario made (printed at its end).
export const counts = { calls: 0, refused: 0 };

// Call a tool; returns the CallToolResult.
export async function call(client, name, args = {}) {
	counts.calls++;
	return client.callTool({ name, arguments: args });
}

// Call a tool that must succeed; returns its structuredContent.
export async function ok(client, name, args = {}) {
	const r = await call(client, name, args);
	assert.ok(!r.isError, `${name} ${JSON.stringify(args)} failed: ${r.content?.[0]?.text}`);
	assert.equal(typeof r.structuredContent, 'object');
	// inbox's texts go once (structuredContent); its text is a summary.
	if (name === 'inbox')
		assert.match(r.content[0].text, /^\d+ messages?\b/);
	else
		assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent,
			'the text content is the structured content serialised');
	return r.structuredContent;
}

// Call a tool that must be refused, leaving the ledger as it was; returns
// its one-line message.
export async function refused(t, client, name, args = {}) {
	const before = dump(t);
	const r = await call(client, name, args);
	assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail, got ${JSON.stringify(r)}`);
	const text = r.content[0].text;
	assert.match(text, /^daicho: [^\n]+$/, 'one line, as the CLI prints it');
	assert.equal(r.structuredContent, undefined);
	assert.equal(dump(t), before, `${name} ${JSON.stringify(args)}: the ledger changed`);
	counts.refused++;
	return { text, exit: r._meta?.['daicho/exit'] };
}

// A raw server process, spoken to in lines: send(obj or string), next()
// returns the next message it writes, close() ends input and resolves to
// the exit status.
export function raw(t, { as = 'raw', env = {} } = {}) {
	const child = spawn(DAICHO, ['mcp', ...(as ? ['--as', as] : [])],
		{ cwd: t.dir, env: t.env(env), stdio: ['pipe', 'pipe', 'pipe'] });
	let pending = '', waiting = [];
	const queue = [];
	const lines = [];
	child.stdout.on('data', (d) => {
		pending += d;
		let nl;
		while ((nl = pending.indexOf('\n')) >= 0) {
			const line = pending.slice(0, nl);
			pending = pending.slice(nl + 1);
			lines.push(line);
			const msg = JSON.parse(line); // every line must be JSON
			if (waiting.length)
				waiting.shift()(msg);
			else
				queue.push(msg);
		}
	});
	let stderr = '';
	child.stderr.on('data', (d) => { stderr += d; });
	const exited = new Promise((res) => child.on('exit', (code) => res(code)));
	return {
		child, lines,
		stderr: () => stderr,
		send(m) { child.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n'); },
		next(ms = 5000) {
			if (queue.length)
				return Promise.resolve(queue.shift());
			return new Promise((res, rej) => {
				const timer = setTimeout(() => rej(new Error('no message in time; stderr: ' + stderr)), ms);
				waiting.push((m) => { clearTimeout(timer); res(m); });
			});
		},
		async request(id, method, params) {
			this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
			return this.next();
		},
		close() { child.stdin.end(); return exited; },
		exited,
	};
}

export const INIT_PARAMS = (version) => ({ protocolVersion: version, capabilities: {},
	clientInfo: { name: 'raw', version: '1' } });

/*
 * Run the scenario named by the command line's argument from scenarios
 * (script: the file's name, for the usage line) on a new ledger, and exit:
 * 0 when it passes, 1 with what differed (the ledger is kept to look at),
 * 2 for an unknown scenario.
 */
export async function runScenario(scenarios, script) {
	const name = process.argv[2];
	if (!scenarios[name]) {
		console.error(`usage: node ${script} ${Object.keys(scenarios).join('|')}`);
		process.exit(2);
	}
	const t = makeLedger();
	try {
		await scenarios[name](t);
		t.cleanup();
		console.log(`ok ${name}: ${counts.calls} tool calls, ${counts.refused} refused with the ledger unchanged`);
		process.exit(0);
	} catch (e) {
		console.error(e.message ?? e);
		if (!(e instanceof assert.AssertionError))
			console.error(e);
		console.error(`(ledger kept in ${t.dir})`);
		process.exit(1);
	}
}

