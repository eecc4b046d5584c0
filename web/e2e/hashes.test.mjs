// SPDX-License-Identifier: MIT OR Apache-2.0
// The explorer page in headless Chromium: serves web/www from a local static server, types
// into the Hashes and Merkle panels and compares what the page shows with Node's `crypto`.
//
// Needs the wasm package in web/www/pkg (web/test.sh builds it) and a Chromium binary:
// CHROMIUM=/path/to/chromium overrides the default /usr/bin/chromium.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openPage, SHOTS } from './browser.mjs';

const sha256 = (b) => createHash('sha256').update(b).digest();
const hex = (b) => Buffer.from(b).toString('hex');
const sha256d = (b) => sha256(sha256(b));
function taggedHash(tag, msg) {
  const t = sha256(Buffer.from(tag, 'utf8'));
  return createHash('sha256').update(t).update(t).update(msg).digest();
}
function merkleRoot(leaves) {
  let level = leaves.map((l) => Buffer.from(l));
  while (level.length > 1) {
    if (level.length % 2) level.push(level[level.length - 1]);
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i], level[i + 1]])));
    level = next;
  }
  return level[0];
}

let session;
let page;
let problems;

before(async () => {
  session = await openPage({ viewport: { width: 1100, height: 1400 }, colorScheme: 'dark' });
  ({ page, problems } = session);
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(session.base);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20_000 });
});

after(async () => {
  await session?.close();
});

const text = (sel) => page.textContent(sel);

async function setEncoding(encoding) {
  await page.click(`label[for="enc-${encoding}"]`);
  assert.equal(await page.isChecked(`#enc-${encoding}`), true);
}

test('page loads the wasm module and shows the Hashes tab', async () => {
  assert.equal(await text('#backend'), 'wasm32 · portable');
  assert.equal(await page.getAttribute('#tab-hashes', 'aria-selected'), 'true');
  assert.equal(await page.isVisible('#panel-hashes'), true);
  assert.equal(await page.inputValue('#tag'), 'BIP0340/challenge');
  // The empty message is hashed from the start.
  assert.equal(await text('#out-sha256'), hex(sha256(Buffer.alloc(0))));
});

test('text mode: outputs match node:crypto as you type', async () => {
  await setEncoding('text');
  for (const msg of ['abc', 'The quick brown fox jumps over the lazy dog', 'héllo ₿ 🚀', 'x'.repeat(1000)]) {
    await page.fill('#input', msg);
    const bytes = Buffer.from(msg, 'utf8');
    assert.equal(await text('#out-sha256'), hex(sha256(bytes)), msg);
    assert.equal(await text('#out-sha256d'), hex(sha256d(bytes)), msg);
    assert.equal(await text('#out-sha256d-rev'), hex(Buffer.from(sha256d(bytes)).reverse()), msg);
    assert.equal(await text('#out-tagged'), hex(taggedHash('BIP0340/challenge', bytes)), msg);
    assert.equal(await text('#out-bytes'), `${bytes.length} bytes`);
  }
  // Long inputs are previewed, not dumped.
  assert.equal(await text('#out-input-hex'), `${'78'.repeat(128)}… (872 more bytes)`);
  await page.type('#input', 'y');
  const bytes = Buffer.from(`${'x'.repeat(1000)}y`);
  assert.equal(await text('#out-sha256'), hex(sha256(bytes)), 'typing a key updates the output');
});

test('hex mode: digits are bytes, whitespace and case do not matter', async () => {
  await setEncoding('hex');
  await page.fill('#input', 'DE ad\nbeef 00');
  const bytes = Buffer.from('deadbeef00', 'hex');
  assert.equal(await text('#out-bytes'), '5 bytes');
  assert.equal(await text('#out-input-hex'), 'deadbeef00');
  assert.equal(await text('#out-sha256'), hex(sha256(bytes)));
  assert.equal(await text('#out-sha256d'), hex(sha256d(bytes)));
  assert.equal(await text('#out-tagged'), hex(taggedHash('BIP0340/challenge', bytes)));
  assert.equal(await page.isVisible('#input-error'), false);
  // Switching back reads the same characters as text.
  await setEncoding('text');
  assert.equal(await text('#out-sha256'), hex(sha256(Buffer.from('DE ad\nbeef 00'))));
});

test('bad hex shows the error and blanks the outputs until fixed', async () => {
  await setEncoding('hex');
  await page.fill('#input', 'abc');
  assert.equal(await page.isVisible('#input-error'), true);
  assert.equal(await text('#input-error'), 'odd number of hex digits (3); each byte needs two');
  assert.equal(await text('#out-sha256'), '—');
  assert.equal(await text('#out-tagged'), '—');
  assert.equal(await page.getAttribute('#input', 'aria-invalid'), 'true');
  assert.equal(await page.isVisible('#out-bytes'), false);
  await page.fill('#input', '00 1g');
  assert.equal(await text('#input-error'), "invalid hex digit 'g' at position 4");
  await page.fill('#input', '001f');
  assert.equal(await page.isVisible('#input-error'), false);
  assert.equal(await text('#out-bytes'), '2 bytes');
  assert.equal(await text('#out-sha256'), hex(sha256(Buffer.from('001f', 'hex'))));
});

test('tagged hash follows the tag field', async () => {
  await setEncoding('hex');
  await page.fill('#input', 'c00151'); // TapLeaf preimage of the script OP_TRUE
  for (const tag of ['TapLeaf', 'TapSighash', '', 'BIP0340/challenge']) {
    await page.fill('#tag', tag);
    const msg = Buffer.from('c00151', 'hex');
    assert.equal(await text('#out-tagged'), hex(taggedHash(tag, msg)), `tag ${JSON.stringify(tag)}`);
    assert.equal(await text('#out-tag-sha256'), hex(sha256(Buffer.from(tag))));
  }
  await page.fill('#tag', 'TapLeaf');
  assert.equal(await text('#out-tagged'),
    'a85b2107f791b26a84e7586c28cec7cb61202ed3d01944d832500f363782d675');
});

test('merkle box: block 100000, the mutated flag and bad lines', async () => {
  await page.click('#merkle-example');
  assert.equal(await text('#merkle-leaves'), '4 leaves');
  assert.equal(await text('#merkle-root-display'),
    'f3e94742aca4b5ef85488dc37c06c3282295ffec960994b2c0d5ac2a25a95766');
  assert.equal(await text('#merkle-mutated'), 'no');

  const [a, b, c] = ['a', 'b', 'c'].map((s) => sha256(Buffer.from(s)));
  await page.selectOption('#merkle-order', 'internal');
  await page.fill('#merkle-input', [a, b, c].map(hex).join('\n'));
  const root = merkleRoot([a, b, c]);
  assert.equal(await text('#merkle-root'), hex(root));
  assert.equal(await text('#merkle-root-display'), hex(Buffer.from(root).reverse()));
  assert.equal(await text('#merkle-mutated'), 'no');
  // CVE-2012-2459: duplicating the last leaf keeps the root but marks the tree mutated.
  await page.fill('#merkle-input', [a, b, c, c].map(hex).join('\n'));
  assert.equal(await text('#merkle-leaves'), '4 leaves');
  assert.equal(await text('#merkle-root'), hex(root));
  assert.match(await text('#merkle-mutated'), /^yes/);

  // Display order reverses each line before hashing.
  await page.selectOption('#merkle-order', 'display');
  const rev = (h) => Buffer.from(h).reverse();
  assert.equal(await text('#merkle-root'), hex(merkleRoot([a, b, c, c].map(rev))));

  await page.fill('#merkle-input', `${hex(a)}\n${hex(b).slice(2)}`);
  assert.equal(await text('#merkle-error'), 'line 2: expected 32 bytes (64 hex digits), got 31 bytes');
  assert.equal(await text('#merkle-root'), '—');
  await page.click('#merkle-example');
  assert.equal(await page.isVisible('#merkle-error'), false);
});

test('screenshot, and no errors in the console', async () => {
  await page.fill('#tag', 'BIP0340/challenge');
  await setEncoding('text');
  await page.fill('#input', 'Hello, fullverify!');
  await page.click('.more summary');
  await page.evaluate(() => window.scrollTo(0, 0)); // the sticky header belongs at the top
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'web-screenshot.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
