#!/usr/bin/env node
// A scripted stand-in for a model API, for daicho's end-to-end tests: the
// real agent clients (Claude Code, Codex, Gemini CLI) talk to it instead of
// their model service. Plain Node, no dependencies.
//
//   node standin.js --protocol anthropic|openai|gemini --script FILE
//                   --log FILE --port-file FILE [--max-requests N]
//                   [--lifetime SECONDS] [--idle SECONDS]
//
// Listens on 127.0.0.1 only, on a port of the system's choosing, which it
// writes to --port-file once it listens. Every request is appended to --log
// as one JSON line {n, method, url, body} (body parsed when it is JSON), so
// a test can read what the client sent: the tool results, the hook context.
// It exits by itself after --max-requests requests (default 200), after
// --lifetime seconds (default 180), or after --idle seconds without a
// request (default 60).
//
// The script is a JSON list of turns, the model's answers in order:
//   {"shell": "CMD"}                   run a shell command
//   {"write": "PATH", "content": "T"}  create or overwrite a file
//   {"text": "T"}                      a final answer, ending the turn
//   {"http": 429}                      answer with that HTTP error status
// An answer is chosen from the conversation the client sends, not from a
// counter: turn K answers a request whose history already holds K model
// turns. So retries, several sessions against one stand-in, and requests a
// client makes on the side (titles, checks) do not shift the script. Past
// the end of the script the answer is the text "done.".
//
// The script can also be {"turns": [...], "faults": [...]}, each fault
// {"match": "TEXT", "times": N, "answer": TURN}: the first N sessions whose
// first request contains TEXT (a task id in the worker's prompt, say) get
// the fault's answer instead of turn 0 ({"http": 429}: a rate limit,
// {"http": 400}: the client fails, {"text": "T"}: it claims to be done,
// and says T again for the rest of that session).
// And "shellLogin": "default": Codex's shell calls carry no "login" field,
// as a model's do, so that Codex's own choice (a login shell, which resets
// PATH, unless allow_login_shell = false) decides; without it they ask for
// no login shell.
// And "vars": {"NAME": "REGEX"}: "{{NAME}}" in a turn's strings becomes
// the first group REGEX matches in the request (the task id in a worker's
// prompt, say), so that one script serves many sessions.
//
// Each client gets its own protocol: Anthropic Messages (POST
// /v1/messages, SSE), OpenAI Responses (POST /v1/responses, SSE) and Gemini
// (POST .../models/M:streamGenerateContent?alt=sse, or :generateContent).
// Anything else is logged and answered 404.
'use strict';
const http = require('http');
const fs = require('fs');

function parseArgs(argv) {
	const o = { maxRequests: 200, lifetime: 180, idle: 60 };
	for (let i = 2; i < argv.length; i += 2) {
		const k = argv[i], v = argv[i + 1];
		if (v === undefined) throw new Error(`${k} needs a value`);
		switch (k) {
		case '--protocol': o.protocol = v; break;
		case '--script': o.script = v; break;
		case '--log': o.log = v; break;
		case '--port-file': o.portFile = v; break;
		case '--max-requests': o.maxRequests = Number(v); break;
		case '--lifetime': o.lifetime = Number(v); break;
		case '--idle': o.idle = Number(v); break;
		default: throw new Error(`unknown option ${k}`);
		}
	}
	for (const k of ['protocol', 'script', 'log', 'portFile'])
		if (!o[k]) throw new Error(`--${k.replace(/[A-Z]/g, c => '-' + c.toLowerCase())} is required`);
	if (!['anthropic', 'openai', 'gemini'].includes(o.protocol))
		throw new Error(`unknown protocol ${o.protocol}`);
	return o;
}

const opts = parseArgs(process.argv);
const loaded = JSON.parse(fs.readFileSync(opts.script, 'utf8'));
const script = Array.isArray(loaded) ? loaded : loaded.turns;
const faults = (Array.isArray(loaded) ? [] : loaded.faults || []).map(f => ({ ...f, left: f.times || 1 }));
const shellLogin = (!Array.isArray(loaded) && loaded.shellLogin) || 'off';
if (!['off', 'default'].includes(shellLogin)) throw new Error(`shellLogin: "off" or "default", not ${shellLogin}`);
const vars = Object.entries((!Array.isArray(loaded) && loaded.vars) || {}).map(([k, re]) => [k, new RegExp(re)]);

// TURN with {{NAME}} replaced from the request's raw text.
function substitute(turn, raw) {
	if (!vars.length || !turn) return turn;
	let text = JSON.stringify(turn);
	for (const [k, re] of vars) {
		const m = raw.match(re);
		if (m) text = text.split(`{{${k}}}`).join(m[1]);
	}
	return JSON.parse(text);
}
if (!Array.isArray(script)) throw new Error('the script must be a JSON list of turns, or {turns, faults}');

// The turn that answers a scripted request at turn index K. A session
// that got a fault's text keeps getting it (a stop hook that makes the
// client go on does not make the model do the work).
function pickTurn(k, raw) {
	const told = faults.find(f => f.answer.text !== undefined && raw.includes(f.match) &&
		raw.includes(JSON.stringify(f.answer.text).slice(1, -1)));
	if (k > 0 && told) return substitute(told.answer, raw);
	if (k === 0) {
		const f = faults.find(f => f.left > 0 && raw.includes(f.match));
		if (f) {
			f.left--;
			return substitute(f.answer, raw);
		}
	}
	return k < script.length ? substitute(script[k], raw) : { text: undefined };
}

let served = 0;
let ids = 0;
const nextId = (p) => `${p}_${process.pid}_${++ids}`;

// ---- which turn: count the model's turns already in the conversation ----

function modelTurns(protocol, body) {
	if (!body || typeof body !== 'object') return 0;
	if (protocol === 'anthropic')
		return (body.messages || []).filter(m => m.role === 'assistant').length;
	if (protocol === 'openai') {
		// Responses input: a function call and its output make one turn;
		// an assistant message after tool calls is one more.
		let turns = 0, prevWasModel = false;
		for (const it of body.input || []) {
			const isModel = it.type === 'function_call' || it.type === 'custom_tool_call' ||
				it.type === 'local_shell_call' ||
				(it.type === 'message' && it.role === 'assistant');
			if (isModel && !prevWasModel) turns++;
			prevWasModel = isModel || (prevWasModel && it.type === 'reasoning');
		}
		return turns;
	}
	return (body.contents || []).filter(c => c.role === 'model').length;
}

// A side request (a title, a summary, a check) has no tools to call: it is
// answered with plain text and does not use the script.
function hasTools(protocol, body) {
	if (!body) return false;
	if (protocol === 'gemini')
		return (body.tools || []).some(t => (t.functionDeclarations || []).length > 0);
	return Array.isArray(body.tools) && body.tools.length > 0;
}

// ---- turns into each client's tool calls ----

function toolNames(protocol, body) {
	const names = new Set();
	for (const t of (body && body.tools) || []) {
		if (protocol === 'gemini') for (const f of t.functionDeclarations || []) names.add(f.name);
		else if (t.name) names.add(t.name);
		else if (t.function && t.function.name) names.add(t.function.name);
	}
	return names;
}

// {name, input} of the tool call a turn asks for, in the client's own tools.
function toolCall(protocol, turn, body) {
	const names = toolNames(protocol, body);
	if (turn.shell !== undefined) {
		if (protocol === 'anthropic') return { name: 'Bash', input: { command: turn.shell, description: 'scripted' } };
		if (protocol === 'gemini') return { name: 'run_shell_command', input: { command: turn.shell } };
		// Codex: a login shell resets PATH, so the call asks for none
		// (unless the script says to leave it to Codex, as a model does).
		const login = shellLogin === 'default' ? {} : { login: false };
		if (names.has('exec_command')) return { name: 'exec_command', input: { cmd: turn.shell, ...login } };
		if (names.has('shell_command')) return { name: 'shell_command', input: { command: turn.shell, ...login } };
		return { name: 'shell', input: { command: ['bash', '-c', turn.shell] } };
	}
	if (turn.write !== undefined) {
		if (protocol === 'anthropic') return { name: 'Write', input: { file_path: turn.write, content: turn.content } };
		if (protocol === 'gemini') return { name: 'write_file', input: { file_path: turn.write, content: turn.content } };
		// Codex edits through apply_patch, a freeform tool taking the patch.
		const lines = String(turn.content).replace(/\n$/, '').split('\n').map(l => '+' + l);
		const patch = ['*** Begin Patch', `*** Add File: ${turn.write}`, ...lines, '*** End Patch'].join('\n');
		return { name: 'apply_patch', input: patch, freeform: true };
	}
	if (turn.call !== undefined) return { name: turn.call, input: turn.input || {} };
	return null;
}

// ---- the three wire formats ----

function sse(res, events) {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	for (const [event, data] of events) {
		if (event) res.write(`event: ${event}\n`);
		res.write(`data: ${JSON.stringify(data)}\n\n`);
	}
	res.end();
}

function anthropicAnswer(res, body, turn) {
	const model = (body && body.model) || 'stand-in';
	const call = turn.text === undefined ? toolCall('anthropic', turn, body) : null;
	const block = call
		? { type: 'tool_use', id: nextId('toolu'), name: call.name, input: {} }
		: { type: 'text', text: '' };
	const delta = call
		? { type: 'input_json_delta', partial_json: JSON.stringify(call.input) }
		: { type: 'text_delta', text: turn.text === undefined ? 'done.' : turn.text };
	if (!body || body.stream !== true) {
		const content = call ? { ...block, input: call.input } : { type: 'text', text: delta.text };
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({
			id: nextId('msg'), type: 'message', role: 'assistant', model, content: [content],
			stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null,
			usage: { input_tokens: 10, output_tokens: 5 },
		}));
		return;
	}
	sse(res, [
		['message_start', { type: 'message_start', message: {
			id: nextId('msg'), type: 'message', role: 'assistant', model, content: [],
			stop_reason: null, stop_sequence: null,
			usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } } }],
		['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
		['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
		['content_block_stop', { type: 'content_block_stop', index: 0 }],
		['message_delta', { type: 'message_delta',
			delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
			usage: { output_tokens: 5 } }],
		['message_stop', { type: 'message_stop' }],
	]);
}

function openaiAnswer(res, body, turn) {
	const call = turn.text === undefined ? toolCall('openai', turn, body) : null;
	const respId = nextId('resp');
	let item;
	if (!call) {
		item = { type: 'message', role: 'assistant', id: nextId('msg'), status: 'completed',
			content: [{ type: 'output_text', text: turn.text === undefined ? 'done.' : turn.text, annotations: [] }] };
	} else if (call.freeform) {
		item = { type: 'custom_tool_call', id: nextId('ctc'), call_id: nextId('call'), status: 'completed',
			name: call.name, input: call.input };
	} else {
		item = { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), status: 'completed',
			name: call.name, arguments: JSON.stringify(call.input) };
	}
	const response = { id: respId, object: 'response', status: 'completed', model: (body && body.model) || 'stand-in', output: [] };
	sse(res, [
		['response.created', { type: 'response.created', response: { ...response, status: 'in_progress' } }],
		['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
		['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
		['response.completed', { type: 'response.completed', response: { ...response, output: [item],
			usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5,
				output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } }],
	]);
}

function geminiAnswer(res, body, turn, stream) {
	const call = turn.text === undefined ? toolCall('gemini', turn, body) : null;
	const part = call
		? { functionCall: { name: call.name, args: call.input } }
		: { text: turn.text === undefined ? 'done.' : turn.text };
	const chunk = {
		candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
		usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
		modelVersion: 'stand-in',
	};
	if (!stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(chunk));
		return;
	}
	sse(res, [[null, chunk]]);
}

// The error body each API sends with a status, so that the client reports
// it in its own words (a 429 is a rate limit to all three).
function httpError(res, protocol, status) {
	const msg = status === 429 ? 'Rate limit reached (stand-in)' : `stand-in error ${status}`;
	let body;
	if (protocol === 'anthropic')
		body = { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message: msg } };
	else if (protocol === 'openai')
		body = { error: { type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: status === 429 ? 'rate_limit_exceeded' : null, message: msg } };
	else
		body = { error: { code: status, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL', message: msg } };
	res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
	res.end(JSON.stringify(body));
}

// ---- the server ----

function route(protocol, method, url) {
	if (method !== 'POST') return null;
	const path = url.split('?')[0];
	if (protocol === 'anthropic' && path.endsWith('/v1/messages')) return 'model';
	if (protocol === 'openai' && path.endsWith('/responses')) return 'model';
	if (protocol === 'gemini') {
		if (/:streamGenerateContent$/.test(path)) return 'stream';
		if (/:generateContent$/.test(path)) return 'model';
		if (/:countTokens$/.test(path)) return 'count';
	}
	return null;
}

let idleTimer = null;
function armIdle(server) {
	clearTimeout(idleTimer);
	idleTimer = setTimeout(() => { log({ event: 'exit', why: 'idle' }); server.close(); process.exit(0); }, opts.idle * 1000);
}

function log(rec) {
	fs.appendFileSync(opts.log, JSON.stringify(rec) + '\n');
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', c => chunks.push(c));
	req.on('end', () => {
		armIdle(server);
		const n = ++served;
		const raw = Buffer.concat(chunks).toString('utf8');
		let body = null;
		try { body = raw ? JSON.parse(raw) : null; } catch (e) { body = raw; }
		const kind = route(opts.protocol, req.method, req.url);
		let turnIndex = null;
		if (kind === 'model' || kind === 'stream') {
			const scripted = hasTools(opts.protocol, body);
			turnIndex = scripted ? modelTurns(opts.protocol, body) : null;
			const turn = scripted ? pickTurn(turnIndex, raw) : { text: 'ok' };
			log({ n, method: req.method, url: req.url, turn: turnIndex, body });
			if (turn.http) httpError(res, opts.protocol, turn.http);
			else if (opts.protocol === 'anthropic') anthropicAnswer(res, body, turn);
			else if (opts.protocol === 'openai') openaiAnswer(res, body, turn);
			else geminiAnswer(res, body, turn, kind === 'stream');
		} else if (kind === 'count') {
			log({ n, method: req.method, url: req.url, body });
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ totalTokens: 10 }));
		} else {
			log({ n, method: req.method, url: req.url, body });
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: `the stand-in does not serve ${req.method} ${req.url}` } }));
		}
		if (n >= opts.maxRequests) {
			log({ event: 'exit', why: 'max-requests' });
			server.close();
			setTimeout(() => process.exit(0), 200);
		}
	});
});

server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(opts.portFile + '.tmp', String(server.address().port));
	fs.renameSync(opts.portFile + '.tmp', opts.portFile);
	armIdle(server);
});
setTimeout(() => { log({ event: 'exit', why: 'lifetime' }); process.exit(0); }, opts.lifetime * 1000).unref();
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
