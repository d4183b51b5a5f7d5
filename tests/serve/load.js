// A load test of daicho serve on loopback: 50 clients polling pages and
// the API, and 20 holding Server-Sent Events streams, for SECONDS, while
// the ledger changes underneath. Samples the server's open file
// descriptors and resident memory from /proc. Prints one JSON summary;
// exits 1 on any failed request, on descriptors left open after the
// clients leave, or on memory that grows after the warm-up.
//
// Usage: node load.js URL SERVER_PID SECONDS
'use strict';
const http = require('http');
const fs = require('fs');

const [url, pidText, secondsText] = process.argv.slice(2);
const pid = Number(pidText);
const seconds = Number(secondsText || 30);
const target = new URL(url);
const paths = ['/api/status', '/api/ls', '/', '/tasks', '/api/agents', '/agents',
  '/api/usage?by=model', '/graph'];

const fds = () => fs.readdirSync(`/proc/${pid}/fd`).length;
const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const threads = () => Number(/Threads:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let requests = 0, errors = 0, changes = 0;
const problems = [];
let stopping = false;

function get(path, agent) {
  return new Promise((resolve) => {
    const req = http.get({ host: target.hostname, port: target.port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        requests++;
        if (res.statusCode !== 200) {
          errors++;
          if (problems.length < 10) problems.push(`${path}: ${res.statusCode}`);
        }
        resolve();
      });
    });
    req.on('error', (e) => {
      errors++;
      if (problems.length < 10) problems.push(`${path}: ${e.message}`);
      resolve();
    });
  });
}

async function poller(i) {
  // Half keep their connection, half open one per request.
  const agent = i % 2 ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : new http.Agent({ keepAlive: false });
  let n = i;
  while (!stopping) {
    await get(paths[n++ % paths.length], agent);
    await sleep(50);
  }
  agent.destroy();
}

function stream() {
  return new Promise((resolve) => {
    const req = http.get({ host: target.hostname, port: target.port, path: '/events' }, (res) => {
      if (res.statusCode !== 200) { errors++; problems.push('/events: ' + res.statusCode); }
      res.setEncoding('utf8');
      res.on('data', (chunk) => { changes += (chunk.match(/^event: change$/gm) || []).length; });
      res.on('end', resolve);
      res.on('error', resolve);
    });
    req.on('error', (e) => {
      if (!stopping) { errors++; problems.push('/events: ' + e.message); }
      resolve();
    });
    const timer = setInterval(() => { if (stopping) { clearInterval(timer); req.destroy(); resolve(); } }, 100);
  });
}

(async () => {
  // Warm up: each page once, then the baseline.
  for (const p of paths) await get(p, new http.Agent({ keepAlive: false }));
  await sleep(500);
  const baseline = { fds: fds(), rss_kb: rssKb(), threads: threads() };
  const samples = [];
  const clients = [];
  for (let i = 0; i < 50; i++) clients.push(poller(i));
  for (let i = 0; i < 20; i++) clients.push(stream());
  const started = Date.now();
  while (Date.now() - started < seconds * 1000) {
    await sleep(1000);
    samples.push({ t: Math.round((Date.now() - started) / 1000), fds: fds(), rss_kb: rssKb(), threads: threads() });
  }
  stopping = true;
  await Promise.all(clients);
  // Streams notice a client that left at their next keep-alive (2 s).
  let after;
  for (let i = 0; i < 40; i++) {
    await sleep(250);
    after = { fds: fds(), rss_kb: rssKb(), threads: threads() };
    if (after.fds <= baseline.fds && after.threads <= baseline.threads) break;
  }
  // Memory after the warm-up third of the run against its end.
  const third = samples[Math.floor(samples.length / 3)];
  const last = samples[samples.length - 1];
  const summary = { seconds, requests, errors, sse_changes_received: changes, baseline, after,
    rss_kb_at_third: third.rss_kb, rss_kb_at_end: last.rss_kb,
    peak_fds: Math.max(...samples.map((s) => s.fds)), peak_threads: Math.max(...samples.map((s) => s.threads)),
    problems };
  console.log(JSON.stringify(summary));
  const bad = [];
  if (errors) bad.push(`${errors} failed requests`);
  if (requests < 1000) bad.push(`only ${requests} requests`);
  if (after.fds > baseline.fds) bad.push(`file descriptors: ${baseline.fds} before, ${after.fds} after`);
  if (after.threads > baseline.threads) bad.push(`threads (connections): ${baseline.threads} before, ${after.threads} after`);
  // Flat: at most 8 MB (and 25 %) more at the end than a third of the way in.
  const growth = last.rss_kb - third.rss_kb;
  if (growth > 8192 && growth > third.rss_kb / 4) bad.push(`memory grew ${growth} kB after the warm-up`);
  if (changes === 0) bad.push('no stream saw a change');
  if (bad.length) { console.error(bad.join('\n')); process.exit(1); }
})();
