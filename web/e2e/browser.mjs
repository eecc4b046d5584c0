// SPDX-License-Identifier: MIT OR Apache-2.0
// What the browser tests share: web/www served on 127.0.0.1 and a page in headless Chromium
// (CHROMIUM=... overrides /usr/bin/chromium) whose page and console errors are collected.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WWW = resolve(HERE, '..', 'www');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Where the tests save screenshots (target/, ignored by git). */
export const SHOTS = resolve(HERE, '..', '..', 'target');

/**
 * Serves web/www and opens a Chromium page with `pageOptions`. Returns the page, the server's
 * base URL, `problems` (page errors and console errors, in order) and `close`.
 */
export async function openPage(pageOptions) {
  assert.ok(existsSync(join(WWW, 'pkg', 'fullverify_web.js')),
    'web/www/pkg is missing: build it with web/test.sh (wasm-bindgen --target web)');
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set CHROMIUM=...)`);
  const server = await serve(WWW);
  const closeServer = () => new Promise((ok) => server.close(ok));
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
        '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  } catch (e) {
    await closeServer();
    throw e;
  }
  const page = await browser.newPage(pageOptions);
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`); });
  const close = async () => {
    await browser.close();
    await closeServer();
  };
  return { page, base: `http://127.0.0.1:${server.address().port}/`, problems, close };
}
