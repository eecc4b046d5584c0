// SPDX-License-Identifier: MIT OR Apache-2.0
// Independent reference computations for the browser tests, written from the BIP texts with
// node:crypto and BigInt only (no code shared with the wasm module):
//   - transaction parsing, legacy SignatureHash (SIGHASH_ALL, no OP_CODESEPARATOR),
//     BIP143 and BIP341 (key path and script path with SIGHASH_DEFAULT/ALL) digests;
//   - the GLV split of libsecp256k1 from the lattice constants.

import { createHash } from 'node:crypto';

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const sha256d = (b) => sha256(sha256(b));
const tagged = (tag, ...parts) => {
  const t = sha256(Buffer.from(tag));
  return sha256(t, t, ...parts);
};

function compact(n) {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) { const b = Buffer.alloc(3); b[0] = 0xfd; b.writeUInt16LE(n, 1); return b; }
  const b = Buffer.alloc(5); b[0] = 0xfe; b.writeUInt32LE(n, 1); return b;
}
const varBytes = (b) => Buffer.concat([compact(b.length), b]);
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n >>> 0); return b; };
const i64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; };

/** Parses a serialized transaction (with or without witness). */
export function parseTx(hex) {
  const b = Buffer.from(hex, 'hex');
  let p = 0;
  const take = (n) => { const s = b.subarray(p, p + n); p += n; return s; };
  const cs = () => {
    const v = b[p++];
    if (v < 0xfd) return v;
    if (v === 0xfd) { const r = b.readUInt16LE(p); p += 2; return r; }
    const r = b.readUInt32LE(p); p += 4; return r;
  };
  const version = b.readUInt32LE(p); p += 4;
  let segwit = false;
  if (b[p] === 0 && b[p + 1] === 1) { segwit = true; p += 2; }
  const inputs = [];
  for (let i = 0, n = cs(); i < n; i++) {
    const outpoint = take(36);
    const scriptSig = take(cs());
    const sequence = b.readUInt32LE(p); p += 4;
    inputs.push({ outpoint, scriptSig, sequence, witness: [] });
  }
  const outputs = [];
  for (let i = 0, n = cs(); i < n; i++) {
    const value = take(8);
    const spk = take(cs());
    outputs.push(Buffer.concat([value, varBytes(spk)]));
  }
  if (segwit) for (const input of inputs) for (let j = 0, n = cs(); j < n; j++) input.witness.push(take(cs()));
  const locktime = b.readUInt32LE(p);
  return { version, inputs, outputs, locktime };
}

/** Legacy SIGHASH_ALL digest of input `n` with `scriptCode` (no OP_CODESEPARATOR in it). */
export function legacySighashAll(tx, n, scriptCode) {
  const parts = [u32(tx.version), compact(tx.inputs.length)];
  tx.inputs.forEach((inp, i) => {
    parts.push(inp.outpoint, i === n ? varBytes(scriptCode) : Buffer.from([0]), u32(inp.sequence));
  });
  parts.push(compact(tx.outputs.length), ...tx.outputs, u32(tx.locktime), u32(1));
  return sha256d(Buffer.concat(parts));
}

/** BIP143 SIGHASH_ALL digest. */
export function bip143SighashAll(tx, n, scriptCode, amount) {
  const hashPrevouts = sha256d(Buffer.concat(tx.inputs.map((i) => i.outpoint)));
  const hashSequence = sha256d(Buffer.concat(tx.inputs.map((i) => u32(i.sequence))));
  const hashOutputs = sha256d(Buffer.concat(tx.outputs));
  const inp = tx.inputs[n];
  return sha256d(Buffer.concat([u32(tx.version), hashPrevouts, hashSequence, inp.outpoint,
    varBytes(scriptCode), i64(amount), u32(inp.sequence), hashOutputs, u32(tx.locktime), u32(1)]));
}

/**
 * BIP341 digest for SIGHASH_DEFAULT (0) or ALL (1), no annex; `leaf` (a script) makes it a
 * script-path (BIP342) digest with codesep_pos 0xffffffff and leaf version 0xc0.
 */
export function bip341Sighash(tx, n, prevouts, hashType, leaf = null) {
  const amounts = Buffer.concat(prevouts.map(([a]) => i64(a)));
  const spks = Buffer.concat(prevouts.map(([, s]) => varBytes(Buffer.from(s, 'hex'))));
  const parts = [Buffer.from([0x00, hashType]), u32(tx.version), u32(tx.locktime),
    sha256(Buffer.concat(tx.inputs.map((i) => i.outpoint))), sha256(amounts), sha256(spks),
    sha256(Buffer.concat(tx.inputs.map((i) => u32(i.sequence)))), sha256(Buffer.concat(tx.outputs)),
    Buffer.from([leaf ? 2 : 0]), u32(n)];
  if (leaf) {
    parts.push(tagged('TapLeaf', Buffer.from([0xc0]), varBytes(leaf)), Buffer.from([0]), u32(0xffffffff));
  }
  return tagged('TapSighash', Buffer.concat(parts));
}

// --- GLV -------------------------------------------------------------------------------------

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const LAMBDA = 0x5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72n;
// A short basis of the lattice {(a, b) : a + λ·b ≡ 0 (mod n)} (Guide to ECC, alg. 3.74).
const A1 = 0x3086d221a7d46bcde86c90e49284eb15n;
const B1 = -0xe4437ed6010e88286f547fa90abfe4c3n;
const A2 = 0x114ca50f7a8e2f3f657c1108d9d44cfd8n;
const B2 = A1;
const mod = (x) => ((x % N) + N) % N;
/** ⌊x / 2^k⌉ for x ≥ 0. */
const roundShift = (x, k) => (x + (1n << (k - 1n))) >> k;
// The precomputed rounding multipliers g1 = ⌊2^384·b2/n⌉, g2 = ⌊2^384·(−b1)/n⌉.
const G1 = (2n * (B2 << 384n) + N) / (2n * N);
const G2 = (2n * (-B1 << 384n) + N) / (2n * N);

/** The split k = k1 + λ·k2 (mod n) as libsecp256k1 computes it, k1 and k2 signed. */
export function glvSplit(k) {
  const c1 = roundShift(k * G1, 384n);
  const c2 = roundShift(k * G2, 384n);
  const k2 = mod(-c1 * B1 - c2 * B2);
  const k1 = mod(k - LAMBDA * k2);
  const signed = (x) => (x > N / 2n ? x - N : x);
  return { k1: signed(k1), k2: signed(k2), c1, c2, check: mod(signed(k1) + LAMBDA * signed(k2)) === mod(k) };
}

/** Whether (a1, b1) and (a2, b2) lie on the lattice: a + λ·b ≡ 0 (mod n). */
export const basisOnLattice = () => mod(A1 + LAMBDA * B1) === 0n && mod(A2 + LAMBDA * B2) === 0n;
