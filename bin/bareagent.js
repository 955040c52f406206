#!/usr/bin/env node
// The `bareagent` command. Installed from npm, the package carries the compiled JavaScript
// (dist/, built at prepack) and no TypeScript sources: it runs that, with no compiler at start.
// In a clone, src/ is there: the TypeScript runs through tsx (a devDependency), no build step.
const { existsSync } = require('node:fs');
const path = require('node:path');

if (existsSync(path.join(__dirname, '..', 'src', 'client.ts'))) {
  require('tsx/cjs');
  require('../src/client.ts');
} else {
  require('../dist/client.js');
}
