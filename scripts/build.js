#!/usr/bin/env node
// `npm run build` (and `prepack`): src/ compiled to JavaScript with type declarations in dist/,
// the layout of src/ kept (the code finds demo/, package.json and its static files by relative
// paths), and the approvers' page's static files copied beside the code that serves them.
const { execFileSync } = require('node:child_process');
const { cpSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
cpSync(path.join(root, 'src', 'ui', 'static'), path.join(root, 'dist', 'ui', 'static'), { recursive: true });
