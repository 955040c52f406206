#!/usr/bin/env node
// `prepack` / `postpack`: the clone's `prepare` (patch-package, which applies patches/ to the
// clone's own SDK) stays out of the packed package.json. npm lists a dependency's `prepare` among
// the install scripts a user is asked to approve, and there it would find neither patch-package
// nor patches/: an installed package never changes the user's node_modules.
// `strip` keeps the manifest as it was in package.json.orig and removes the script; `restore` puts
// it back (a leftover copy from an interrupted pack is restored first).
const { existsSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const manifest = path.resolve(__dirname, '..', 'package.json');
const kept = `${manifest}.orig`;
const restore = () => existsSync(kept) && renameSync(kept, manifest);

if (process.argv[2] === 'strip') {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeFileSync(kept, text);
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (process.argv[2] === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exit(2);
}
