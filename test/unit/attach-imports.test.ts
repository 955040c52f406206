import { importCandidates } from '../../src/activities/tools/attach-imports';

const numbered = (text: string) => text.split('\n').map((line, i) => `${i + 1}: ${line}`).join('\n');

test('JavaScript: relative require, import and export-from name files, tried with the extensions a resolver tries; packages and escapes name none', () => {
  const text = numbered("const a = require('./settings');\nimport b from '../lib/b.js';\nexport * from './c';\nconst fs = require('node:fs');\nimport x from 'lodash';\nrequire('../../../etc/passwd');\nimport('./lazy');");
  const found = importCandidates('src/server.js', text);
  expect(found.map((c) => c[0])).toEqual(['src/settings.js', 'lib/b.js', 'src/c.js', 'src/lazy.js']);
  expect(found[0]).toEqual(['src/settings.js', 'src/settings.ts', 'src/settings.mjs', 'src/settings.cjs', 'src/settings.jsx', 'src/settings.tsx', 'src/settings.json', 'src/settings/index.js', 'src/settings/index.ts']);
  expect(found[1]![0]).toBe('lib/b.js');
});

test('Python: sibling modules, relative imports and packages; a file never names itself', () => {
  const text = numbered('import os\nfrom settings import PORT\nfrom .util import slug\nfrom ..core.db import connect\nimport app');
  expect(importCandidates('pkg/app.py', text)).toEqual([
    ['pkg/os.py', 'pkg/os/__init__.py'],
    ['pkg/settings.py', 'pkg/settings/__init__.py'],
    ['pkg/util.py', 'pkg/util/__init__.py'],
    ['core/db.py', 'core/db/__init__.py'],
    ['pkg/app/__init__.py'],
  ]);
});

test('a hostile file: a thousand imports give at most 16, and a long line is read at once', () => {
  const many = numbered(Array.from({ length: 1000 }, (_, i) => `require('./m${i}');`).join('\n'));
  expect(importCandidates('a.js', many)).toHaveLength(16);
  // Linear patterns: these end within the test's timeout, as a backtracking one would not.
  expect(importCandidates('a.js', `1: ${"require('./".repeat(100_000)}`).length).toBeLessThanOrEqual(16);
  expect(importCandidates('a.py', `1: from ${'.'.repeat(100_000)}x import y`)).toEqual([]);
});
