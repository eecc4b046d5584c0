// SPDX-License-Identifier: MIT OR Apache-2.0
// The explorer page: loads the wasm module, builds the tabs, wires each panel to Explorer.
// Every panel is a <section class="panel" data-tab=… data-title=…> in index.html plus an
// entry in PANELS below. The sighash, GLV and signature panels compute in a Web Worker
// (worker.js) so that the page stays responsive; their state lives in the URL fragment:
//   #sighash?tx=<hex>&prevouts=<amount>:<spk>,…&input=<i>[&flags=<names>][&hashtype=<n>]
//   #glv?k=<decimal or 0xhex>[&w=<2..8>][&point=1]
//   #sig?scheme=ecdsa|bip340&pubkey=…&msg=…&sig=…[&mode=strict|lax]

import init, { Explorer, defaultFlags } from './pkg/fullverify_web.js';
import { EXAMPLES } from './examples.js';

const $ = (id) => document.getElementById(id);

const EMPTY = '—';
const PREVIEW_BYTES = 128;

// Bitcoin block 100000: its four txids (display order); the root is f3e94742…a95766.
const BLOCK_100000_TXIDS = [
  '8c14f0db3df150123e6f3dbbf30f8b955a8249b62ac1d1ff16284aefa3d06d87',
  'fff2525b8931402dd09222c50775608f75787bd2b87e56995a7bdd30f79702c4',
  '6359f0868171b1d194cbee1af2f16ea598ae8fad666d9b012c8ed2b79a236ec4',
  'e9a66845e05d5abc0ad04ec80f774a7e585c6e8db975962d069a522137b80c1d',
];

/** Byte-reverses a hex string. */
function reverseHex(hex) {
  return hex.match(/../g)?.reverse().join('') ?? '';
}

/** Groups the 64 hex digits of a midstate into its eight words. */
function words(hex) {
  return hex.match(/.{8}/g)?.join(' ') ?? hex;
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** Shows `message` in an error line, or hides it when null. */
function showError(el, message) {
  el.hidden = message === null;
  el.textContent = message ?? '';
}

/** Marks an input field invalid (`aria-invalid`) or valid. */
function markInvalid(input, invalid) {
  if (invalid) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid');
}

/** A live panel's input error (null clears it): shown, marked, and its count line hidden meanwhile. */
function inputError(input, errorId, countId, message) {
  showError($(errorId), message);
  markInvalid(input, message !== null);
  $(countId).hidden = message !== null;
}

/** Fills the outputs listed in `values` (id → text), or blanks them all when `values` is null. */
function fill(ids, values) {
  for (const id of ids) {
    const el = $(id);
    el.textContent = values ? values[id] : EMPTY;
    el.classList.toggle('stale', !values);
  }
}

function initHashes(explorer) {
  const input = $('input');
  const tag = $('tag');
  const radios = document.querySelectorAll('input[name="encoding"]');
  const ids = ['out-input-hex', 'out-sha256', 'out-sha256d', 'out-sha256d-rev', 'out-tagged',
    'out-tag-sha256', 'out-tag-midstate'];

  const update = () => {
    const encoding = document.querySelector('input[name="encoding"]:checked').value;
    input.classList.toggle('mono', encoding === 'hex');
    let v;
    try {
      v = explorer.hashes(input.value, encoding, tag.value);
    } catch (e) {
      inputError(input, 'input-error', 'out-bytes', e.message);
      fill(ids, null);
      return;
    }
    inputError(input, 'input-error', 'out-bytes', null);
    $('out-bytes').textContent = plural(v.bytes, 'byte', 'bytes');
    const preview = v.inputHex.slice(0, 2 * PREVIEW_BYTES);
    const more = v.bytes - PREVIEW_BYTES;
    fill(ids, {
      'out-input-hex': v.bytes === 0 ? '(empty)'
        : more > 0 ? `${preview}… (${plural(more, 'more byte', 'more bytes')})` : preview,
      'out-sha256': v.sha256,
      'out-sha256d': v.sha256d,
      'out-sha256d-rev': reverseHex(v.sha256d),
      'out-tagged': v.tagged,
      'out-tag-sha256': v.tagSha256,
      'out-tag-midstate': words(v.tagMidstate),
    });
  };

  input.addEventListener('input', update);
  tag.addEventListener('input', update);
  for (const r of radios) r.addEventListener('change', update);
  update();
}

function initMerkle(explorer) {
  const input = $('merkle-input');
  const order = $('merkle-order');
  const ids = ['merkle-root-display', 'merkle-root', 'merkle-mutated'];

  const update = () => {
    let v;
    try {
      v = explorer.merkle(input.value, order.value);
    } catch (e) {
      inputError(input, 'merkle-error', 'merkle-leaves', e.message);
      $('merkle-mutated').className = 'flag';
      fill(ids, null);
      return;
    }
    inputError(input, 'merkle-error', 'merkle-leaves', null);
    $('merkle-leaves').textContent = plural(v.leaves, 'leaf', 'leaves');
    if (v.leaves === 0) {
      $('merkle-mutated').className = 'flag';
      fill(ids, null);
      return;
    }
    $('merkle-mutated').className = `flag ${v.mutated ? 'bad' : 'good'}`;
    fill(ids, {
      'merkle-root-display': v.rootDisplay,
      'merkle-root': v.root,
      'merkle-mutated': v.mutated ? 'yes — two equal adjacent nodes' : 'no',
    });
  };

  input.addEventListener('input', update);
  order.addEventListener('change', update);
  $('merkle-example').addEventListener('click', () => {
    input.value = BLOCK_100000_TXIDS.join('\n');
    order.value = 'display';
    update();
  });
  update();
}

// --- worker --------------------------------------------------------------------------------

/** Calls into the worker; resolves with the value or rejects with {message, field}. */
function makeWorker() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const pending = new Map();
  let next = 1;
  let readyResolve;
  let readyReject;
  const ready = new Promise((ok, fail) => { readyResolve = ok; readyReject = fail; });
  worker.onmessage = ({ data }) => {
    if ('ready' in data) {
      if (data.ready) readyResolve(); else readyReject(new Error(data.message));
      return;
    }
    const p = pending.get(data.id);
    pending.delete(data.id);
    if (data.ok) p.ok(data.value); else p.fail({ message: data.message, field: data.field });
  };
  worker.onerror = (e) => readyReject(new Error(e.message));
  const start = (module) => worker.postMessage({ module });
  const call = (fn, ...args) => new Promise((ok, fail) => {
    const id = next++;
    pending.set(id, { ok, fail });
    worker.postMessage({ id, fn, args });
  });
  return { call, ready, start };
}

/** The module, compiled once for the page and its worker. */
async function compileModule() {
  const url = new URL('./pkg/fullverify_web_bg.wasm', import.meta.url);
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    // A server that does not send application/wasm: compile from the bytes.
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
    return WebAssembly.compile(await res.arrayBuffer());
  }
}

/**
 * Runs `compute` for the latest request only: a newer call supersedes an older one still in
 * flight, whose result is dropped.
 */
function latest(compute, render) {
  let seq = 0;
  return async () => {
    const mine = ++seq;
    try {
      const v = await compute();
      if (mine === seq) render(null, v);
    } catch (e) {
      if (mine === seq) render(e, null);
    }
  };
}

/** Shows `error` next to the field it names (ids `${prefix}-${field}-error`), clears others. */
function fieldErrors(prefix, fields, error) {
  for (const f of fields) {
    const el = $(`${prefix}-${f}-error`);
    const input = $(`${prefix}-${f}`);
    const mine = error && error.field === f;
    showError(el, mine ? error.message : null);
    if (input) markInvalid(input, mine);
  }
  if (error && !fields.includes(error.field)) {
    showError($(`${prefix}-${fields[0]}-error`), error.message);
  }
}

/** The panel the URL fragment names (`#tab?a=1&b=2`: `tab`; empty without a fragment). */
const fragmentTab = () => location.hash.slice(1).split('?')[0];

/** The query of the URL fragment when it opens panel `tab` (`#tab?a=1&b=2`). */
function fragmentParams(tab) {
  const [name, query] = location.hash.slice(1).split('?');
  return name === tab && query !== undefined ? new URLSearchParams(query) : null;
}

/** Writes the panel's state into the URL fragment without adding a history entry. */
function setFragment(tab, params) {
  if ((fragmentTab() || 'hashes') !== tab) return;
  const q = Object.entries(params).filter(([, v]) => v !== '' && v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v).replace(/%2C/g, ',').replace(/%3A/g, ':')}`).join('&');
  history.replaceState(null, '', `#${tab}${q ? `?${q}` : ''}`);
}

const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
};

// --- sighash -------------------------------------------------------------------------------

const STANDARD_FLAGS = 'P2SH,STRICTENC,DERSIG,LOW_S,NULLDUMMY,MINIMALDATA,DISCOURAGE_UPGRADABLE_NOPS,'
  + 'CLEANSTACK,CHECKLOCKTIMEVERIFY,CHECKSEQUENCEVERIFY,WITNESS,DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM,'
  + 'MINIMALIF,NULLFAIL,WITNESS_PUBKEYTYPE,CONST_SCRIPTCODE,TAPROOT,DISCOURAGE_UPGRADABLE_TAPROOT_VERSION,'
  + 'DISCOURAGE_OP_SUCCESS,DISCOURAGE_UPGRADABLE_PUBKEYTYPE';

const ALGORITHMS = {
  legacy: 'legacy',
  bip143: 'BIP143 (segwit v0)',
  'bip341-key': 'BIP341 key path',
  'bip341-script': 'BIP341 script path',
};

function initSighash(worker) {
  const presets = { consensus: defaultFlags(), standard: STANDARD_FLAGS, none: 'NONE' };
  const tx = $('sh-tx');
  const prevouts = $('sh-prevouts');
  const input = $('sh-input');
  const flags = $('sh-flags');
  const flagset = $('sh-flagset');
  const hashtype = $('sh-hashtype');
  const example = $('sh-example');
  const FIELDS = ['tx', 'prevouts', 'input', 'hashType', 'flags'];
  let previous = null; // the last rendered fields, to highlight what a hash-type change changed

  for (const [key, ex] of Object.entries(EXAMPLES)) {
    example.append(el('option', { value: key, textContent: ex.label }));
  }
  flags.value = presets.consensus;

  const prevoutText = () => prevouts.value.split(/[\n,]/).map((l) => l.trim()).filter(Boolean).join(',');

  const render = (error, v) => {
    fieldErrors('sh', FIELDS, error);
    $('sh-out').classList.toggle('stale', !!error);
    if (error) return;
    // Milliseconds from navigation to the first rendered sighash (read by the browser test).
    document.documentElement.dataset.firstSighashMs ??= String(Math.round(performance.now()));
    $('sh-algorithm').textContent = ALGORITHMS[v.algorithm];
    $('sh-algorithm').className = 'flag info';
    $('sh-reason').textContent = `${v.outputType}: ${v.reason}`;
    $('sh-hashtype-name').textContent = `0x${v.hashType.toString(16).padStart(2, '0')} ${v.hashTypeName}`
      + (v.signatureHashType === null || v.signatureHashType === undefined ? ''
        : v.signatureHashType === v.hashType ? ' (as in the signature)'
          : ` (the signature uses 0x${v.signatureHashType.toString(16).padStart(2, '0')})`);
    $('sh-rule').textContent = v.digestRule;
    $('sh-sighash').textContent = v.sighash;
    $('sh-verdict').textContent = v.verdict;
    $('sh-verdict').className = `flag ${v.verdict === 'valid' ? 'good' : 'bad'}`;
    $('sh-flags-used').textContent = v.flags || '(no flags)';
    const notes = [...v.notes];
    if (v.signatureHashType !== null && v.signatureHashType !== undefined && v.signatureHashType !== v.hashType) {
      notes.unshift('The verdict checks the signatures in the input; the chosen hash type changes only the preimage and digest shown.');
    }
    $('sh-notes').replaceChildren(...notes.map((n) => el('li', { textContent: n })));
    const before = new Map((previous ?? []).map((f) => [f.name, f.hex]));
    const rows = v.fields.map((f, i) => {
      const changed = previous !== null && before.get(f.name) !== f.hex;
      const tr = el('tr', { className: changed ? 'changed' : '' },
        el('td', { textContent: String(i + 1) }),
        el('th', { scope: 'row', textContent: f.name }),
        el('td', {}, el('code', { textContent: f.hex || '(none)' })),
        el('td', { textContent: f.meaning + (changed ? (before.has(f.name) ? ' — changed' : ' — new') : '') }));
      tr.dataset.field = f.name;
      return tr;
    });
    if (v.fields.length === 0) rows.push(el('tr', {}, el('td', { colSpan: 4, textContent: 'no preimage: the digest is the constant 1' })));
    $('sh-fields').replaceChildren(...rows);
    $('sh-aggregates').replaceChildren(...v.aggregates.map((a) => el('details', { className: 'more' },
      el('summary', { textContent: `${a.name} = ${a.hash}(${a.covers.length} items) = ${a.hex}` }),
      el('ol', { className: 'covers' }, ...a.covers.map((c) => el('li', {}, el('code', { textContent: c })))))));
    previous = v.fields;
  };

  const run = latest(
    () => worker.call('explainSighash', tx.value, prevoutText(), input.value, flags.value,
      hashtype.value === '' ? undefined : Number(hashtype.value)),
    render);

  const update = ({ keepPrevious = false } = {}) => {
    if (!keepPrevious) previous = null;
    setFragment('sighash', {
      tx: tx.value.replace(/\s+/g, ''), prevouts: prevoutText(), input: input.value,
      flags: flags.value === presets.consensus ? '' : flags.value,
      hashtype: hashtype.value,
    });
    return run();
  };

  const load = (key) => {
    const ex = EXAMPLES[key];
    if (!ex) return;
    tx.value = ex.tx;
    prevouts.value = ex.prevouts.map(([a, s]) => `${a}:${s}`).join('\n');
    input.value = String(ex.input);
    hashtype.value = '';
    $('sh-source').textContent = `Source: ${ex.source}`;
    update();
  };

  const fromUrl = () => {
    const q = fragmentParams('sighash');
    if (!q) return false;
    tx.value = q.get('tx') ?? '';
    prevouts.value = (q.get('prevouts') ?? '').split(',').filter(Boolean).join('\n');
    input.value = q.get('input') ?? '0';
    flags.value = q.get('flags') ?? presets.consensus;
    hashtype.value = q.get('hashtype') ?? '';
    example.value = '';
    $('sh-source').textContent = '';
    run();
    return true;
  };

  example.addEventListener('change', () => load(example.value));
  for (const e of [tx, prevouts, input, flags]) e.addEventListener('input', () => update());
  flagset.addEventListener('change', () => { flags.value = presets[flagset.value]; update(); });
  hashtype.addEventListener('change', () => update({ keepPrevious: true }));
  window.addEventListener('hashchange', fromUrl);
  if (!fromUrl()) {
    example.value = 'p2wpkh';
    load('p2wpkh');
  }
}

// --- GLV -----------------------------------------------------------------------------------

function initGlv(worker) {
  const k = $('glv-k');
  const w = $('glv-w');
  const point = $('glv-point');

  const digitRow = (label, digits, cols) => {
    const row = [el('span', { className: 'wlabel', textContent: label })];
    for (let i = cols - 1; i >= 0; i--) {
      const d = digits[i] ?? 0;
      row.push(el('span', { className: d > 0 ? 'pos' : d < 0 ? 'neg' : 'zero', textContent: d === 0 ? '·' : String(d), title: `bit ${i}: ${d}` }));
    }
    return el('div', { className: 'wrow' }, ...row);
  };

  const render = (error, v) => {
    fieldErrors('glv', ['k'], error);
    $('glv-out').classList.toggle('stale', !!error);
    if (error) return;
    $('glv-k-dec').textContent = `${v.k} = 0x${v.kHex}`;
    $('glv-k-bits').textContent = `${v.kBits} bits`;
    $('glv-c1').textContent = v.c1;
    $('glv-c2').textContent = v.c2;
    $('glv-k1').textContent = v.k1.decimal;
    $('glv-k2').textContent = v.k2.decimal;
    $('glv-k1-bits').textContent = `${v.k1.bits} bits, ${v.k1.negative ? 'negative' : 'non-negative'}`;
    $('glv-k2-bits').textContent = `${v.k2.bits} bits, ${v.k2.negative ? 'negative' : 'non-negative'}`;
    $('glv-recombined').textContent = v.recombined;
    $('glv-identity').textContent = v.identityHolds ? '≡ k ✓' : '≠ k ✗';
    $('glv-identity').className = `flag ${v.identityHolds ? 'good' : 'bad'}`;
    const cols = Math.max(v.k1.wnaf.length, v.k2.wnaf.length, 1);
    $('glv-wnaf').replaceChildren(
      digitRow(`k1 (${v.k1.nonzero} non-zero)`, v.k1.wnaf, cols),
      digitRow(`k2 (${v.k2.nonzero} non-zero)`, v.k2.wnaf, cols));
    $('glv-costs').replaceChildren(...v.costs.map((c) => el('tr', {},
      el('th', { scope: 'row', textContent: c.method }),
      el('td', { textContent: String(c.doublings) }),
      el('td', { textContent: String(c.additions) }),
      el('td', { textContent: c.detail }))));
    $('glv-point-out').hidden = !v.point;
    if (v.point) {
      $('glv-qx').textContent = `x ${v.point.qx}`;
      $('glv-qy').textContent = `y ${v.point.qy}`;
      $('glv-lqx').textContent = `x ${v.point.lambdaQx}`;
      $('glv-lqy').textContent = `y ${v.point.lambdaQy}`;
      $('glv-bx').textContent = v.point.betaX;
      $('glv-endo').textContent = v.point.holds ? 'λ·Q = (β·x, y) ✓' : 'mismatch ✗';
      $('glv-endo').className = `flag ${v.point.holds ? 'good' : 'bad'}`;
    }
  };

  const run = latest(() => worker.call('glvSplit', k.value, Number(w.value), point.checked), render);
  const update = () => {
    setFragment('glv', { k: k.value.trim(), w: w.value === '5' ? '' : w.value, point: point.checked ? '1' : '' });
    return run();
  };
  const fromUrl = () => {
    const q = fragmentParams('glv');
    if (!q) return false;
    k.value = q.get('k') ?? '';
    w.value = q.get('w') ?? '5';
    point.checked = q.get('point') === '1';
    run();
    return true;
  };
  $('glv-random').addEventListener('click', () => {
    // A uniformly random 256-bit value; the rare one at or above n is reported as out of range.
    const b = crypto.getRandomValues(new Uint8Array(32));
    k.value = `0x${[...b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
    update();
  });
  k.addEventListener('input', update);
  w.addEventListener('change', update);
  point.addEventListener('change', update);
  window.addEventListener('hashchange', fromUrl);
  if (!fromUrl()) run();
}

// --- signatures ----------------------------------------------------------------------------

// ECDSA: BIP143's native P2WPKH example (input 1): key, sighash and DER signature.
// BIP340: test vector 0 of bip-0340/test-vectors.csv.
const SIG_EXAMPLES = {
  ecdsa: {
    pubkey: '025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357',
    msg: 'c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670',
    sig: '304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee',
  },
  bip340: {
    pubkey: 'f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9',
    msg: '0000000000000000000000000000000000000000000000000000000000000000',
    sig: 'e907831f80848d1069a5371b402410364bdf1c5f8307b0084c55f1ce2dca821525f66a4a85ea8b71e482a74f382d2ce5ebeee8fdb2172f477df4900d310536c0',
  },
};

function initSig(worker) {
  const scheme = $('sig-scheme');
  const mode = $('sig-mode');
  const pubkey = $('sig-pubkey');
  const msg = $('sig-msg');
  const sig = $('sig-sig');
  const FIELDS = ['pubkey', 'msg', 'sig'];

  const render = (error, v) => {
    fieldErrors('sig', FIELDS, error);
    $('sig-out').classList.toggle('stale', !!error);
    if (error) return;
    $('sig-valid').textContent = v.valid ? 'valid' : 'invalid';
    $('sig-valid').className = `flag ${v.valid ? 'good' : 'bad'}`;
    $('sig-reason').textContent = v.reason ?? '';
    $('sig-steps').replaceChildren(...v.steps.map((s) => el('tr', {},
      el('th', { scope: 'row', textContent: s.name }),
      el('td', {}, el('code', { textContent: s.hex || '—' })),
      el('td', { textContent: s.meaning }))));
  };
  const run = latest(() => (scheme.value === 'ecdsa'
    ? worker.call('explainEcdsa', pubkey.value, msg.value, sig.value, mode.value)
    : worker.call('explainBip340', pubkey.value, msg.value, sig.value)), render);
  const update = () => {
    mode.disabled = scheme.value !== 'ecdsa';
    setFragment('sig', { scheme: scheme.value, pubkey: pubkey.value.trim(), msg: msg.value.trim(), sig: sig.value.trim(), mode: scheme.value === 'ecdsa' ? mode.value : '' });
    return run();
  };
  const setExample = (ex) => {
    pubkey.value = ex.pubkey;
    msg.value = ex.msg;
    sig.value = ex.sig;
  };
  const example = () => {
    setExample(SIG_EXAMPLES[scheme.value]);
    update();
  };
  const fromUrl = () => {
    const q = fragmentParams('sig');
    if (!q) return false;
    scheme.value = q.get('scheme') === 'bip340' ? 'bip340' : 'ecdsa';
    mode.value = q.get('mode') === 'lax' ? 'lax' : 'strict';
    pubkey.value = q.get('pubkey') ?? '';
    msg.value = q.get('msg') ?? '';
    sig.value = q.get('sig') ?? '';
    mode.disabled = scheme.value !== 'ecdsa';
    run();
    return true;
  };
  $('sig-example').addEventListener('click', example);
  scheme.addEventListener('change', example);
  mode.addEventListener('change', update);
  for (const e of [pubkey, msg, sig]) e.addEventListener('input', update);
  window.addEventListener('hashchange', fromUrl);
  if (!fromUrl()) {
    setExample(SIG_EXAMPLES.ecdsa);
    run();
  }
}

const PANELS = {
  hashes: (explorer) => {
    initHashes(explorer);
    initMerkle(explorer);
  },
};

const WORKER_PANELS = { sighash: initSighash, glv: initGlv, sig: initSig };

/** Builds one tab per panel section and shows the one named by the URL fragment. */
function initTabs() {
  const nav = $('tabs');
  const sections = [...document.querySelectorAll('section.panel')];
  const buttons = sections.map((s) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'tab');
    b.id = `tab-${s.dataset.tab}`;
    b.textContent = s.dataset.title;
    b.setAttribute('aria-controls', s.id);
    b.addEventListener('click', () => {
      if (fragmentTab() !== s.dataset.tab) location.hash = s.dataset.tab;
    });
    nav.append(b);
    return b;
  });
  // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
  nav.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0 || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return;
    const j = (i + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length;
    buttons[j].focus();
    buttons[j].click();
  });
  const show = () => {
    const want = fragmentTab();
    const active = sections.find((s) => s.dataset.tab === want) ?? sections[0];
    sections.forEach((s, i) => {
      s.hidden = s !== active;
      buttons[i].setAttribute('aria-selected', String(s === active));
      buttons[i].tabIndex = s === active ? 0 : -1;
    });
  };
  window.addEventListener('hashchange', show);
  show();
}

async function main() {
  initTabs();
  const worker = makeWorker();
  try {
    const module = await compileModule();
    worker.start(module);
    await Promise.all([init({ module_or_path: module }), worker.ready]);
  } catch (e) {
    const fatal = $('fatal');
    fatal.textContent = `Could not load the WebAssembly module: ${e.message}`;
    fatal.hidden = false;
    $('backend').textContent = 'not loaded';
    return;
  }
  const explorer = new Explorer();
  $('backend').textContent = `wasm32 · ${explorer.backend}`;
  for (const [name, start] of Object.entries(PANELS)) {
    if (document.querySelector(`section.panel[data-tab="${name}"]`)) start(explorer);
  }
  for (const [name, start] of Object.entries(WORKER_PANELS)) {
    if (document.querySelector(`section.panel[data-tab="${name}"]`)) start(worker);
  }
  document.documentElement.dataset.ready = 'true';
}

main();
