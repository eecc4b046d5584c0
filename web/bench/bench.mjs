// SPDX-License-Identifier: MIT OR Apache-2.0
// Times ECDSA and BIP340 verification in wasm32 in one Node.js process: the explorer's module
// (the fullverify core, Portable backend) against the k256 crate compiled to wasm32 with the
// same toolchain and wasm-bindgen. Both verify the same signatures; every result is checked.
//
//   node web/bench/bench.mjs <fullverify pkg dir> <k256 pkg dir> <results json> [--quick]

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { createHash, generateKeyPairSync, sign, randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import os from 'node:os';

const [fvDir, k256Dir, out] = process.argv.slice(2, 5).map((p) => resolve(p));
const quick = process.argv.includes('--quick');

async function load(dir, name) {
  const mod = await import(pathToFileURL(join(dir, `${name}.js`)));
  mod.initSync({ module: await readFile(join(dir, `${name}_bg.wasm`)) });
  return mod;
}
const fv = await load(fvDir, 'fullverify_web');
const k256 = await load(k256Dir, 'k256_wasm_peer');

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const COUNT = quick ? 32 : 256;
const sha256 = (b) => createHash('sha256').update(b).digest();

/** DER with s replaced by n − s when s > n/2 (both verifiers then see a low-S signature). */
function lowS(der) {
  const rLen = der[3];
  const r = der.subarray(4, 4 + rLen);
  const sLen = der[5 + rLen];
  let s = BigInt(`0x${der.subarray(6 + rLen, 6 + rLen + sLen).toString('hex')}`);
  if (s <= N / 2n) return der;
  s = N - s;
  let sb = Buffer.from(s.toString(16).padStart(64, '0'), 'hex');
  while (sb.length > 1 && sb[0] === 0 && sb[1] < 0x80) sb = sb.subarray(1);
  if (sb[0] >= 0x80) sb = Buffer.concat([Buffer.from([0]), sb]);
  const body = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, sb.length]), sb]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

// ECDSA data from node:crypto (OpenSSL), BIP340 data from k256's signer.
const ecdsa = [];
for (let i = 0; i < COUNT; i++) {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const pk = publicKey.export({ type: 'spki', format: 'der' }).subarray(-65);
  const compressed = Buffer.concat([Buffer.from([pk[64] & 1 ? 3 : 2]), pk.subarray(1, 33)]);
  const msg = randomBytes(64);
  const der = lowS(sign('sha256', msg, { key: privateKey, dsaEncoding: 'der' }));
  ecdsa.push([compressed, sha256(msg), der]);
}
const schnorr = [];
for (let i = 0; i < COUNT; i++) {
  let secret;
  do secret = randomBytes(32); while (BigInt(`0x${secret.toString('hex')}`) >= N || secret.every((b) => b === 0));
  const msg = randomBytes(32);
  const both = Buffer.from(k256.signBip340(secret, msg));
  schnorr.push([both.subarray(0, 32), msg, both.subarray(32)]);
}

/** Best-of-rounds nanoseconds per verification; throws if any verification fails. */
function time(verify, data) {
  const rounds = quick ? 3 : 9;
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (const [a, b, c] of data) if (!verify(a, b, c)) throw new Error('a valid signature failed');
    const dt = Number(process.hrtime.bigint() - t0) / data.length;
    best = Math.min(best, dt);
  }
  return best;
}

// Warm-up (JIT of the glue, first use of any lazily built table), then measure.
time(fv.verifyEcdsa, ecdsa.slice(0, 4)); time(k256.verifyEcdsa, ecdsa.slice(0, 4));
time(fv.verifyBip340, schnorr.slice(0, 4)); time(k256.verifyBip340, schnorr.slice(0, 4));
const rows = [];
for (const [scheme, data] of [['ecdsa', ecdsa], ['bip340', schnorr]]) {
  const fvNs = time(scheme === 'ecdsa' ? fv.verifyEcdsa : fv.verifyBip340, data);
  const kNs = time(scheme === 'ecdsa' ? k256.verifyEcdsa : k256.verifyBip340, data);
  // Each side rejects a corrupted signature too.
  const [a, b, c] = data[0];
  const bad = Buffer.from(c); bad[bad.length - 5] ^= 1;
  const f = scheme === 'ecdsa' ? [fv.verifyEcdsa, k256.verifyEcdsa] : [fv.verifyBip340, k256.verifyBip340];
  if (f[0](a, b, bad) || f[1](a, b, bad)) throw new Error('a corrupted signature verified');
  rows.push({ scheme, fullverify_us: fvNs / 1e3, k256_us: kNs / 1e3, ratio: fvNs / kNs });
  console.log(`${scheme.padEnd(7)} fullverify ${(fvNs / 1e3).toFixed(1)} µs   k256 ${(kNs / 1e3).toFixed(1)} µs   ratio ${(fvNs / kNs).toFixed(3)}`);
}
const fvWasm = (await readFile(join(fvDir, 'fullverify_web_bg.wasm'))).length;
const result = {
  benchmark: 'wasm32 signature verification, one Node.js process',
  quick,
  signatures_per_scheme: COUNT,
  timing: 'best of rounds, mean per verification over all signatures',
  node: process.version,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  peer: 'k256 0.13.4 (RustCrypto), wasm32-unknown-unknown, opt-level 3, thin LTO',
  fullverify_backend: 'portable',
  fullverify_wasm_bytes: fvWasm,
  results: rows,
};
await mkdir(dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${out}`);
