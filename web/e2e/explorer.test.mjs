// SPDX-License-Identifier: MIT OR Apache-2.0
// The sighash, GLV and signature panels in headless Chromium, driven through their URL
// fragments and form fields. Expected values come from outside the wasm module: the BIP143
// and BIP341 vectors' published digests, and e2e/reference.mjs (node:crypto and BigInt,
// written from the BIPs) for the rest.
//
// Needs web/www/pkg (web/test.sh builds it) and Chromium (CHROMIUM=... overrides
// /usr/bin/chromium). Saves screenshots under target/ (ignored by git).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openPage, SHOTS } from './browser.mjs';
import { parseTx, legacySighashAll, bip143SighashAll, bip341Sighash, glvSplit, basisOnLattice, LAMBDA }
  from './reference.mjs';
import { EXAMPLES } from '../www/examples.js';

let session;
let page;
let base;
let problems;

before(async () => {
  session = await openPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  ({ page, base, problems } = session);
});

after(async () => {
  await session?.close();
});

const text = (sel) => page.textContent(sel);
const byId = (id) => `[data-testid="${id}"]`;

/** Opens `fragment` on a fresh load and waits for the module. */
async function open(fragment) {
  await page.goto('about:blank');
  await page.goto(`${base}#${fragment}`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20_000 });
}

/** Waits until the sighash panel shows a result (not stale) and returns it. */
async function sighashResult() {
  await page.waitForFunction(() => {
    const out = document.getElementById('sh-out');
    return !out.classList.contains('stale') && document.querySelector('[data-testid="verdict"]').textContent;
  });
  return { sighash: await text(byId('sighash')), verdict: await text(byId('verdict')) };
}

const fragmentOf = (ex, prevouts = ex.prevouts) =>
  `sighash?tx=${ex.tx}&prevouts=${prevouts.map(([a, s]) => `${a}:${s}`).join(',')}&input=${ex.input}`;

/** The digest each example signs, computed by reference.mjs, checked against the vectors. */
function expectedSighash(name, ex) {
  const tx = parseTx(ex.tx);
  const i = ex.input;
  const spk = Buffer.from(ex.prevouts[i][1], 'hex');
  switch (name) {
    case 'p2pkh':
      return legacySighashAll(tx, i, spk).toString('hex');
    case 'p2wpkh':
      return bip143SighashAll(tx, i, Buffer.concat([Buffer.from('76a914', 'hex'), spk.subarray(2), Buffer.from('88ac', 'hex')]), ex.prevouts[i][0]).toString('hex');
    case 'p2wsh-2of3': {
      const w = tx.inputs[i].witness;
      return bip143SighashAll(tx, i, w[w.length - 1], ex.prevouts[i][0]).toString('hex');
    }
    case 'taproot-key':
      return bip341Sighash(tx, i, ex.prevouts, 0).toString('hex');
    case 'taproot-script': {
      const w = tx.inputs[i].witness;
      return bip341Sighash(tx, i, ex.prevouts, 0, w[w.length - 2]).toString('hex');
    }
    default:
      throw new Error(name);
  }
}

test('reference digests agree with the published vectors', () => {
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    if (ex.sighash) assert.equal(expectedSighash(name, ex), ex.sighash, name);
  }
});

test('every bundled example: the vector digest and a valid verdict', async () => {
  let first = true;
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    const started = Date.now();
    await open(fragmentOf(ex));
    const r = await sighashResult();
    if (first) {
      const fromNavigation = await page.evaluate(() => document.documentElement.dataset.firstSighashMs);
      console.log(`first sighash render: ${fromNavigation} ms after navigation start `
        + `(${Date.now() - started} ms including the test's own navigation)`);
      first = false;
    }
    assert.equal(r.sighash, expectedSighash(name, ex), name);
    if (ex.sighash) assert.equal(r.sighash, ex.sighash, name);
    assert.equal(r.verdict, 'valid', name);
  }
});

test('the algorithm shown follows the spent output', async () => {
  const want = { p2pkh: 'legacy', p2wpkh: 'BIP143 (segwit v0)', 'p2wsh-2of3': 'BIP143 (segwit v0)',
    'taproot-key': 'BIP341 key path', 'taproot-script': 'BIP341 script path' };
  await open('sighash');
  for (const [name, alg] of Object.entries(want)) {
    await page.selectOption('#sh-example', name);
    await page.waitForFunction((a) => document.getElementById('sh-algorithm').textContent === a, alg);
    await sighashResult();
    assert.equal(await text(byId('verdict')), 'valid', name);
    assert.match(page.url(), /#sighash\?tx=/, 'the state is in the URL');
  }
});

test('a mutated amount makes the verdict invalid', async () => {
  for (const name of ['p2wpkh', 'taproot-key']) {
    const ex = EXAMPLES[name];
    const prevouts = ex.prevouts.map(([a, s], i) => [i === ex.input ? a + 1 : a, s]);
    await open(fragmentOf(ex, prevouts));
    const r = await sighashResult();
    assert.match(r.verdict, /^invalid: [A-Z_]+$/, name);
    assert.notEqual(r.sighash, ex.sighash, name);
  }
  // Flags from the URL are used: without WITNESS a P2WPKH spend is not checked at all.
  const ex = EXAMPLES.p2wpkh;
  const prevouts = ex.prevouts.map(([a, s], i) => [i === ex.input ? a + 1 : a, s]);
  await open(`${fragmentOf(ex, prevouts)}&flags=P2SH`);
  assert.equal((await sighashResult()).verdict, 'valid');
  assert.equal(await text('#sh-flags-used'), 'P2SH');
  // The presets: no flags at all, then the standard policy set (the mutated amount fails again).
  await page.selectOption('#sh-flagset', 'none');
  await page.waitForFunction(() => document.getElementById('sh-flags-used').textContent === 'NONE');
  assert.equal((await sighashResult()).verdict, 'valid');
  assert.match(page.url(), /&flags=NONE/);
  await page.selectOption('#sh-flagset', 'standard');
  await page.waitForFunction(() => document.getElementById('sh-flags-used').textContent.includes('LOW_S'));
  assert.match((await sighashResult()).verdict, /^invalid: /);
});

test('changing the hash type re-renders and highlights the changed fields', async () => {
  await open(fragmentOf(EXAMPLES['taproot-key']));
  await sighashResult();
  const before = await text(byId('sighash'));
  await page.selectOption('#sh-hashtype', '129'); // ALL|ANYONECANPAY
  await page.waitForFunction((b) => document.querySelector('[data-testid="sighash"]').textContent !== b, before);
  const changed = await page.$$eval('#sh-fields tr.changed', (rows) => rows.map((r) => r.dataset.field));
  assert.ok(changed.includes('hash_type'), changed.join(','));
  assert.ok(changed.includes('outpoint') && changed.includes('amount'), changed.join(','));
  assert.ok(!changed.includes('nVersion'), changed.join(','));
  // SINGLE needs an output at the input's index (input 4, two outputs): the error names the field.
  await page.selectOption('#sh-hashtype', '3');
  await page.waitForSelector('#sh-hashType-error:not([hidden])');
  assert.match(await text('#sh-hashType-error'), /SIGHASH_SINGLE/);
  await page.selectOption('#sh-hashtype', '');
  await page.waitForFunction((b) => document.querySelector('[data-testid="sighash"]').textContent === b
    && document.getElementById('sh-hashType-error').hidden, before);
  assert.equal(await text(byId('verdict')), 'valid', 'the verdict uses the signature, not the chosen type');
});

test('bad input shows an error next to its field and the page keeps working', async () => {
  const ex = EXAMPLES.p2wpkh;
  await open(fragmentOf(ex));
  await sighashResult();
  await page.fill('#sh-tx', ex.tx.slice(0, 120));
  await page.waitForSelector('#sh-tx-error:not([hidden])');
  assert.match(await text('#sh-tx-error'), /^not a transaction: /);
  assert.equal(await page.getAttribute('#sh-tx', 'aria-invalid'), 'true');
  await page.fill('#sh-tx', 'xyz');
  await page.waitForFunction(() => /hex/.test(document.getElementById('sh-tx-error').textContent));
  await page.fill('#sh-tx', ex.tx);
  await page.waitForSelector('#sh-tx-error', { state: 'hidden' });
  assert.equal((await sighashResult()).verdict, 'valid');
  // One spent output for a two-input transaction.
  await page.fill('#sh-prevouts', `${ex.prevouts[1][0]}:${ex.prevouts[1][1]}`);
  await page.waitForSelector('#sh-prevouts-error:not([hidden])');
  assert.match(await text('#sh-prevouts-error'), /has 2 inputs but 1 spent outputs/);
  await page.selectOption('#sh-example', 'p2pkh');
  await page.waitForSelector('#sh-prevouts-error', { state: 'hidden' });
  assert.equal((await sighashResult()).verdict, 'valid');
  await page.fill('#sh-input', '7');
  await page.waitForSelector('#sh-input-error:not([hidden])');
  await page.fill('#sh-input', '0');
  await page.fill('#sh-flags', 'P2SH,NOT_A_FLAG');
  await page.waitForSelector('#sh-flags-error:not([hidden])');
  assert.deepEqual(problems, []);
});

test('GLV panel: k1 and k2 for three fixed scalars match the lattice computation', async () => {
  assert.ok(basisOnLattice());
  const scalars = [
    1n,
    0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdefn,
    0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140n, // n − 1
  ];
  for (const [i, k] of scalars.entries()) {
    const written = i === 1 ? `0x${k.toString(16)}` : k.toString();
    await open(`glv?k=${written}`);
    await page.waitForFunction(() => !document.getElementById('glv-out').classList.contains('stale')
      && document.querySelector('[data-testid="k1"]').textContent);
    const ref = glvSplit(k);
    assert.ok(ref.check);
    assert.ok(ref.k1 < 1n << 128n && -ref.k1 < 1n << 128n && ref.k2 < 1n << 128n && -ref.k2 < 1n << 128n);
    assert.equal(await text(byId('k1')), ref.k1.toString(), `k1 of ${k}`);
    assert.equal(await text(byId('k2')), ref.k2.toString(), `k2 of ${k}`);
    assert.equal(await text('#glv-c1'), ref.c1.toString());
    assert.equal(await text('#glv-c2'), ref.c2.toString());
    assert.equal(await text('#glv-identity'), '≡ k ✓');
    // The two digit rows are aligned: one cell per bit position in each.
    const cells = await page.$$eval('#glv-wnaf .wrow', (rows) => rows.map((r) => r.children.length));
    assert.equal(cells.length, 2);
    assert.equal(cells[0], cells[1]);
  }
  // λ is a cube root of unity mod n (a sanity check of the constant the test uses).
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  assert.equal((LAMBDA * LAMBDA % n) * LAMBDA % n, 1n);
});

test('GLV panel: out-of-range scalar, random scalar and the endomorphism check', async () => {
  await open('glv?k=0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
  await page.waitForSelector('#glv-k-error:not([hidden])');
  assert.match(await text('#glv-k-error'), /out of range/);
  await page.click('#glv-random');
  await page.waitForFunction(() => !document.getElementById('glv-out').classList.contains('stale')
    || !document.getElementById('glv-k-error').hidden);
  const k = BigInt(await page.inputValue('#glv-k'));
  if (await page.isHidden('#glv-k-error')) {
    await page.waitForFunction(() => document.getElementById('glv-recombined').textContent.length === 64);
    assert.equal(await text(byId('k1')), glvSplit(k).k1.toString());
  }
  await page.fill('#glv-k', '7');
  await page.check('#glv-point');
  await page.waitForSelector('#glv-point-out:not([hidden])');
  await page.waitForFunction(() => document.getElementById('glv-endo').textContent.length > 0);
  assert.equal(await text('#glv-endo'), 'λ·Q = (β·x, y) ✓');
  assert.match(page.url(), /#glv\?k=7&point=1/);
});

test('signature panel: ECDSA and BIP340 examples verify, a flipped bit does not', async () => {
  await open('sig');
  await page.waitForFunction(() => document.querySelector('[data-testid="sig-valid"]').textContent);
  assert.equal(await text(byId('sig-valid')), 'valid');
  const names = await page.$$eval('#sig-steps th', (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(names, ['r', 's', 's (normalised)', 'z', 'w', 'u1', 'u2', 'R.x', 'R.x mod n']);
  await page.fill('#sig-msg', 'd37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670');
  await page.waitForFunction(() => document.querySelector('[data-testid="sig-valid"]').textContent === 'invalid');
  await page.selectOption('#sig-scheme', 'bip340');
  await page.waitForFunction(() => document.querySelector('[data-testid="sig-valid"]').textContent === 'valid');
  await page.fill('#sig-pubkey', 'f9308a');
  await page.waitForSelector('#sig-pubkey-error:not([hidden])');
  assert.match(await text('#sig-pubkey-error'), /32 bytes/);
});

test('screenshots, keyboard tabs and no errors in the console', async () => {
  await open(fragmentOf(EXAMPLES['p2wsh-2of3']));
  await sighashResult();
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'web-sighash.png'), fullPage: false });
  await page.emulateMedia({ colorScheme: 'dark' });
  await open('glv?k=0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef&point=1');
  await page.waitForFunction(() => document.getElementById('glv-endo').textContent.length > 0);
  await page.screenshot({ path: join(SHOTS, 'web-glv-dark.png'), fullPage: false });
  // Arrow keys move between tabs.
  await page.focus('#tab-glv');
  await page.keyboard.press('ArrowRight');
  // The tab switch goes through the URL fragment (a hashchange event): wait for it.
  await page.waitForSelector('#tab-sig[aria-selected="true"]', { timeout: 5000 });
  assert.equal(await page.getAttribute('#tab-sig', 'aria-selected'), 'true');
  assert.deepEqual(problems, []);
});
