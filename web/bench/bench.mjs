// SPDX-License-Identifier: MIT OR Apache-2.0
// Times ECDSA and BIP340 verification in wasm32 in one Node.js process: the explorer's module
// (the fullverify core, Portable backend) against the k256 crate compiled to wasm32 with the
// same toolchain and wasm-bindgen. Both verify the same signatures; every result is checked.
//
//   node web/bench/bench.mjs <fullverify pkg dir> <k256 pkg dir> <packet.json | results dir> [--quick]

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { createHash, generateKeyPairSync, sign, randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import { execFileSync } from 'node:child_process';

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

/**
 * Nanoseconds per verification of `verifyA` and `verifyB` over `data`: the two alternate,
 * batch by batch, and each keeps its fastest batch (the machine may be shared, so the minimum
 * is the least disturbed estimate and alternation exposes both to the same conditions).
 * Throws if any verification fails.
 */
function timePair(verifyA, verifyB, data) {
  const rounds = quick ? 3 : 25;
  const batch = 32;
  const best = [Infinity, Infinity];
  const one = (f, slice) => {
    const t0 = process.hrtime.bigint();
    for (const [a, b, c] of slice) if (!f(a, b, c)) throw new Error('a valid signature failed');
    return Number(process.hrtime.bigint() - t0) / slice.length;
  };
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < data.length; i += batch) {
      const slice = data.slice(i, i + batch);
      best[0] = Math.min(best[0], one(verifyA, slice));
      best[1] = Math.min(best[1], one(verifyB, slice));
    }
  }
  return best;
}

// Warm-up (JIT of the glue, first use of any lazily built table), then measure.
for (const [a, b, c] of ecdsa.slice(0, 4)) { fv.verifyEcdsa(a, b, c); k256.verifyEcdsa(a, b, c); }
for (const [a, b, c] of schnorr.slice(0, 4)) { fv.verifyBip340(a, b, c); k256.verifyBip340(a, b, c); }
const rows = [];
for (const [scheme, data] of [['ecdsa', ecdsa], ['bip340', schnorr]]) {
  const [fvNs, kNs] = scheme === 'ecdsa'
    ? timePair(fv.verifyEcdsa, k256.verifyEcdsa, data)
    : timePair(fv.verifyBip340, k256.verifyBip340, data);
  // Each side rejects a corrupted signature too.
  const [a, b, c] = data[0];
  const bad = Buffer.from(c); bad[bad.length - 5] ^= 1;
  const f = scheme === 'ecdsa' ? [fv.verifyEcdsa, k256.verifyEcdsa] : [fv.verifyBip340, k256.verifyBip340];
  if (f[0](a, b, bad) || f[1](a, b, bad)) throw new Error('a corrupted signature verified');
  rows.push({ scheme, fullverify_us: fvNs / 1e3, k256_us: kNs / 1e3, ratio: fvNs / kNs });
  console.log(`${scheme.padEnd(7)} fullverify ${(fvNs / 1e3).toFixed(1)} µs   k256 ${(kNs / 1e3).toFixed(1)} µs   ratio ${(fvNs / kNs).toFixed(3)}`);
}
const fvWasm = (await readFile(join(fvDir, 'fullverify_web_bg.wasm'))).length;

// The shared result-packet header (results/schema/packet.schema.json), as the native drivers
// write it: provenance of the source tree, the compiler and the machine.
const repo = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
const run = (cmd, args) => {
  try { return execFileSync(cmd, args, { cwd: repo, encoding: 'utf8' }).trim(); } catch { return ''; }
};
const gitRev = run('git', ['rev-parse', 'HEAD']) || 'unknown';
const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']) !== '';
const now = new Date();
const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
let flags = [];
try {
  const info = await readFile('/proc/cpuinfo', 'utf8');
  flags = (info.split('\n').find((l) => l.startsWith('flags')) ?? '').split(':')[1]?.trim().split(/\s+/) ?? [];
} catch { /* not Linux: no flag list */ }
const result = {
  schema_version: 1,
  experiment: 'web',
  run_id: `${stamp}-${gitRev === 'unknown' ? 'unknown' : gitRev.slice(0, 10)}`,
  created_unix: Math.floor(now.getTime() / 1000),
  git_rev: gitRev,
  dirty,
  rustc: run('rustc', ['--version']) || 'rustc unknown',
  profile: 'release',
  target: 'wasm32-unknown-unknown',
  cpu: { model: os.cpus()[0]?.model ?? 'unknown', flags, logical_cpus: os.cpus().length },
  backend: 'portable',
  threads: 1,
  params: {
    benchmark: 'wasm32 signature verification, one Node.js process',
    quick,
    signatures_per_scheme: COUNT,
    timing: 'per verification: the fastest batch of 32 signatures, the two implementations alternating batch by batch',
    node: process.version,
    peer: 'k256 0.13.4 (RustCrypto), wasm32-unknown-unknown, opt-level 3, thin LTO',
    build: 'both modules: cargo --release, wasm-bindgen --target web, wasm-opt (binaryen 132) with the arguments in web/Cargo.toml',
  },
  metrics: { fullverify_wasm_bytes: fvWasm, results: rows },
};
// `out` is a packet path (`….json`) or a folder that receives `<run-id>.json`.
const path = out.endsWith('.json') ? out : join(out, `${result.run_id}.json`);
await mkdir(dirname(path), { recursive: true });
await writeFile(path, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${path}`);
