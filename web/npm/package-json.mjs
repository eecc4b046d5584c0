// SPDX-License-Identifier: MIT OR Apache-2.0
// Writes the npm package metadata of the wasm package, as `wasm-pack build --target web` does:
// package.json from the crate's Cargo metadata and the crate README.
//
//   cargo metadata --format-version 1 --no-deps | node web/npm/package-json.mjs <pkg dir>

import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, dirname } from 'node:path';

const out = process.argv[2];
const meta = JSON.parse(readFileSync(0, 'utf8'));
const crate = meta.packages.find((p) => p.name === 'fullverify-web');
const stem = crate.name.replace(/-/g, '_');
const pkg = {
  name: crate.name,
  type: 'module',
  description: crate.description,
  version: crate.version,
  license: crate.license,
  repository: { type: 'git', url: crate.repository },
  files: [`${stem}_bg.wasm`, `${stem}.js`, `${stem}.d.ts`, `${stem}_bg.wasm.d.ts`],
  main: `${stem}.js`,
  types: `${stem}.d.ts`,
  sideEffects: ['./snippets/*'],
};
writeFileSync(join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
copyFileSync(join(dirname(crate.manifest_path), 'README.md'), join(out, 'README.md'));
// The arguments wasm-pack passes to wasm-opt, for web/test.sh.
const opt = crate.metadata?.['wasm-pack']?.profile?.release?.['wasm-opt'];
writeFileSync(join(out, '.wasm-opt-args'), Array.isArray(opt) ? opt.join(' ') : '');
