// One browser scenario against a running daicho serve, in Debian's
// Chromium driven by playwright-core: headless, no sandbox as root, no
// background networking (the machine has no internet). Exits 0 when the
// scenario holds; otherwise prints why and exits 1.
//
// Usage: node browser.js SCENARIO URL [LOGIN_URL] [ARG...]
// Screenshots go to $SERVE_ARTIFACTS (printed).
'use strict';
const { chromium } = require('playwright-core');
const { execFileSync } = require('child_process');
const path = require('path');
const fs = require('fs');

const [scenario, url, login, ...rest] = process.argv.slice(2);
const artifacts = process.env.SERVE_ARTIFACTS || path.join(__dirname, '../../build/serve-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

function fail(message) {
  throw new Error(message);
}

async function launch() {
  const args = ['--disable-background-networking', '--disable-component-update',
    '--disable-default-apps', '--disable-sync', '--no-first-run',
    '--disable-features=Translate,MediaRouter,OptimizationHints',
    '--metrics-recording-only', '--no-default-browser-check'];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args });
}

// A page that records console errors and uncaught exceptions.
async function watchedPage(context) {
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => page.problems.push('page error: ' + e.message));
  return page;
}

async function shot(page, name) {
  const file = path.join(artifacts, name + '.png');
  await page.screenshot({ path: file, fullPage: true });
  console.log('screenshot: ' + file);
  return file;
}

function daicho(...args) {
  return execFileSync('daicho', args, { encoding: 'utf8' });
}

const scenarios = {
  // Every page loads with no console error; live updates connect.
  async pages(browser) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await watchedPage(context);
    for (const [p, name] of [['/', 'needs'], ['/agents', 'agents'], ['/tasks', 'tasks'],
      ['/tasks/1', 'task'], ['/graph', 'graph'], ['/usage', 'usage']]) {
      const response = await page.goto(url + p);
      if (response.status() !== 200) fail(`${p}: ${response.status()}`);
      await page.waitForSelector('html[data-live="on"]', { timeout: 30000 });
      await shot(page, 'page-' + name);
    }
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // A pending approval shows under Needs you, with its buttons; the
  // screenshot of this page is the README's.
  async approval(browser) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await watchedPage(context);
    await page.goto(login);
    await page.goto(url + '/');
    const item = page.locator('.item[data-kind="approval"]');
    await item.waitFor({ timeout: 30000 });
    const text = await item.innerText();
    if (!/deploy prod/.test(text)) fail('the approval item does not name the command: ' + text);
    if (await item.locator('button[data-action="approve"]').isDisabled()) fail('approve is disabled for a logged-in person');
    const file = await shot(page, 'dashboard');
    if (process.env.DAICHO_UPDATE_SCREENSHOT) {
      fs.copyFileSync(file, path.join(__dirname, '../../docs/img/dashboard.png'));
      console.log('updated docs/img/dashboard.png');
    }
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // A task changed with the CLI updates the open page in place: no reload.
  async live(browser) {
    const context = await browser.newContext();
    const page = await watchedPage(context);
    await page.goto(url + '/tasks/1');
    await page.waitForSelector('html[data-live="on"]', { timeout: 30000 });
    await page.evaluate(() => { window.notReloaded = true; });
    const before = await page.locator('#task-state').innerText();
    if (!/open/.test(before)) fail('task 1 is not open at first: ' + before);
    const started = Date.now();
    daicho('--as', 'w1', 'claim', '1');
    await page.waitForFunction(() => /claimed/.test(document.querySelector('#task-state').innerText),
      null, { timeout: 30000 });
    const took = Date.now() - started;
    if (!(await page.evaluate(() => window.notReloaded === true))) fail('the page was reloaded');
    // The page has no timer of its own: only the live channel's 'change'
    // redraws it, so an update at all, without a reload, is the proof (how
    // soon is load's, and bench/'s to measure).
    console.log(`updated in place ${took} ms after the change`);
    await shot(page, 'live-updated');
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // Approve in the browser (logged in): the button posts with the CSRF token.
  async approve(browser) {
    const context = await browser.newContext();
    const page = await watchedPage(context);
    await page.goto(login);
    await page.goto(url + '/');
    const item = page.locator('.item[data-kind="approval"]');
    await item.waitFor({ timeout: 30000 });
    await Promise.all([
      page.waitForNavigation(),
      item.locator('button[data-action="approve"]').click(),
    ]);
    await page.waitForFunction(() => !document.querySelector('.item[data-kind="approval"]'), null, { timeout: 30000 });
    await shot(page, 'approved');
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // Reply to message 1 and mark message 2 read from Needs you (logged
  // in): each is a form on the message's item.
  async reply(browser) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await watchedPage(context);
    await page.goto(login);
    await page.goto(url + '/');
    const first = page.locator('.item[data-kind="message"][data-id="1"]');
    await first.waitFor({ timeout: 30000 });
    await shot(page, 'messages');
    await first.locator('input[name="text"]').fill('yes, after the backup');
    await Promise.all([page.waitForNavigation(), first.locator('button[data-action="reply"]').click()]);
    const second = page.locator('.item[data-kind="message"][data-id="2"]');
    await second.waitFor({ timeout: 30000 });
    await Promise.all([page.waitForNavigation(), second.locator('button[data-action="read"]').click()]);
    await page.waitForFunction(() => !document.querySelector('.item[data-kind="message"][data-id="2"]'), null, { timeout: 30000 });
    if (await page.locator('.item[data-kind="message"][data-id="1"]').count() !== 1)
      fail('message 1 went away: a reply is not a read');
    await shot(page, 'replied');
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // Without the login cookie the buttons are disabled and the action
  // itself is refused: 401 without a session, 403 without the CSRF token.
  async refused(browser) {
    const anonymous = await browser.newContext();
    const page = await watchedPage(anonymous);
    await page.goto(url + '/');
    const item = page.locator('.item[data-kind="approval"]');
    await item.waitFor({ timeout: 30000 });
    if (!(await item.locator('button[data-action="approve"]').isDisabled())) fail('approve is enabled without a login');
    const status = await page.evaluate(async () => (await fetch('/api/approve/1', { method: 'POST' })).status);
    if (status !== 401) fail('no cookie: ' + status);
    // A form another page would submit: no CSRF token.
    const formStatus = await page.evaluate(async () => (await fetch('/api/approve/1', {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'if=true' })).status);
    if (formStatus !== 401) fail('form without cookie: ' + formStatus);
    const logged = await browser.newContext();
    const page2 = await watchedPage(logged);
    await page2.goto(login);
    const noCsrf = await page2.evaluate(async () => (await fetch('/api/approve/1', { method: 'POST' })).status);
    if (noCsrf !== 403) fail('cookie without CSRF token: ' + noCsrf);
    await shot(page, 'refused');
  },

  // Another server on loopback (an agent's dev server) that the logged-in
  // browser visits gets no session: the cookie is for the dashboard's own
  // host name, whatever the port. Control: the same name on the other
  // port does get it (cookies ignore ports), which is why the name's label
  // is random and printed only on the person's terminal.
  async 'cookie-port'(browser) {
    const http = require('http');
    const seen = [];
    const other = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, cookie: req.headers.cookie || '' });
      res.end('dev server');
    });
    await new Promise((res) => other.listen(0, '127.0.0.1', res));
    const port = other.address().port;
    const context = await browser.newContext();
    const page = await watchedPage(context);
    await page.goto(login);
    if (!(await page.locator('.who form').count())) fail('not logged in after the login URL');
    const plain = rest[0]; // the address daicho serve printed (127.0.0.1)
    for (const u of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, plain + '/']) {
      const r = await page.goto(u);
      if (!r.ok()) fail(`${u}: ${r.status()}`);
    }
    const leaked = seen.filter((x) => x.cookie.includes('daicho_session'));
    if (leaked.length) fail('another port got the session: ' + JSON.stringify(leaked));
    // At the printed loopback address the dashboard itself sees no session.
    await page.goto(plain + '/');
    if (await page.locator('.who form').count()) fail('a session at the loopback address');
    const control = new URL(url);
    await page.goto(`http://${control.hostname}:${port}/`);
    if (!seen.some((x) => x.cookie.includes('daicho_session')))
      fail('control: the same host name on another port did not get the cookie');
    other.close();
    console.log(`requests seen by the other server: ${seen.length}`);
  },

  // With JavaScript off every page still renders and the buttons still
  // act (plain forms): unblock task 1 from Needs you, answering it.
  async nojs(browser) {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await watchedPage(context);
    await page.goto(login);
    for (const p of ['/', '/agents', '/tasks?state=blocked&sort=title', '/tasks/1', '/graph', '/usage']) {
      const response = await page.goto(url + p);
      if (response.status() !== 200) fail(`${p}: ${response.status()}`);
    }
    await page.goto(url + '/');
    const item = page.locator('.item[data-kind="blocked"]');
    await item.waitFor({ timeout: 30000 });
    // The question is answered in the same step.
    await item.locator('input[name="answer"]').fill('use the staging key');
    await Promise.all([page.waitForNavigation(), item.locator('button[data-action="unblock"]').click()]);
    if (await page.locator('.item[data-kind="blocked"]').count() !== 0) fail('still blocked after Unblock');
    await shot(page, 'no-javascript');
    if (page.problems.length) fail(page.problems.join('\n'));
  },

  // A graph of many tasks renders as SVG, coloured by state.
  async graph(browser) {
    const want = Number(rest[0] || 500);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await watchedPage(context);
    const started = Date.now();
    const response = await page.goto(url + '/graph', { timeout: 60000 });
    if (response.status() !== 200) fail('graph: ' + response.status());
    const nodes = await page.locator('#graph svg g.node').count();
    const heading = await page.locator('h1').innerText();
    console.log(`graph: ${heading}; ${nodes} nodes in the SVG, ${Date.now() - started} ms`);
    if (!heading.includes(`${want} tasks`)) fail('heading: ' + heading);
    if (nodes < 2) fail('too few nodes: ' + nodes);
    const fills = await page.locator('#graph svg g.node path, #graph svg g.node polygon').evaluateAll(
      (els) => [...new Set(els.map((e) => e.getAttribute('fill')))]);
    if (fills.length < 2) fail('nodes not coloured by state: ' + fills.join(','));
    await shot(page, 'graph-' + want);
    if (page.problems.length) fail(page.problems.join('\n'));
  },
};

(async () => {
  const run = scenarios[scenario];
  if (!run) {
    console.error('unknown scenario ' + scenario);
    process.exit(2);
  }
  const browser = await launch();
  try {
    await run(browser);
  } catch (e) {
    console.error(e.stack || String(e));
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
})();
