// SPDX-License-Identifier: MIT OR Apache-2.0
// The explorer page: loads the wasm module, builds the tabs, wires each panel to Explorer.
// Every panel is a <section class="panel" data-tab=… data-title=…> in index.html plus an
// entry in PANELS below.

import init, { Explorer } from './pkg/fullverify_web.js';

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
      showError($('input-error'), e.message);
      input.setAttribute('aria-invalid', 'true');
      $('out-bytes').hidden = true;
      fill(ids, null);
      return;
    }
    showError($('input-error'), null);
    input.removeAttribute('aria-invalid');
    $('out-bytes').hidden = false;
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
      showError($('merkle-error'), e.message);
      input.setAttribute('aria-invalid', 'true');
      $('merkle-leaves').hidden = true;
      $('merkle-mutated').className = 'flag';
      fill(ids, null);
      return;
    }
    showError($('merkle-error'), null);
    input.removeAttribute('aria-invalid');
    $('merkle-leaves').hidden = false;
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

const PANELS = {
  hashes: (explorer) => {
    initHashes(explorer);
    initMerkle(explorer);
  },
};

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
    b.addEventListener('click', () => { location.hash = s.dataset.tab; });
    nav.append(b);
    return b;
  });
  const show = () => {
    const want = location.hash.slice(1);
    const active = sections.find((s) => s.dataset.tab === want) ?? sections[0];
    sections.forEach((s, i) => {
      s.hidden = s !== active;
      buttons[i].setAttribute('aria-selected', String(s === active));
    });
  };
  window.addEventListener('hashchange', show);
  show();
}

async function main() {
  initTabs();
  try {
    await init();
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
  document.documentElement.dataset.ready = 'true';
}

main();
