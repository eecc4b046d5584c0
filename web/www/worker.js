// SPDX-License-Identifier: MIT OR Apache-2.0
// Runs the explorer's longer computations (sighash with script verification, GLV splits,
// signature checks) off the page's thread. The page first sends {module}, the compiled
// WebAssembly.Module it also uses (so the module is compiled once); {ready: true} answers when
// it is instantiated. Then messages in: {id, fn, args}; out: {id, ok, value} or
// {id, ok: false, message, field}.

import init, * as wasm from './pkg/fullverify_web.js';

const FUNCTIONS = {
  explainSighash: wasm.explainSighash,
  glvSplit: wasm.glvSplit,
  explainEcdsa: wasm.explainEcdsa,
  explainBip340: wasm.explainBip340,
};

let loaded = null;

self.onmessage = async ({ data: { id, fn, args, module } }) => {
  if (module) {
    loaded = init({ module_or_path: module }).then(
      () => { self.postMessage({ ready: true }); },
      (e) => { self.postMessage({ ready: false, message: String(e?.message ?? e) }); throw e; },
    );
    return;
  }
  try {
    await loaded;
    const f = FUNCTIONS[fn];
    if (!f) throw new Error(`unknown function ${fn}`);
    self.postMessage({ id, ok: true, value: f(...args) });
  } catch (e) {
    self.postMessage({ id, ok: false, message: String(e?.message ?? e), field: e?.field ?? null });
  }
};
