#!/usr/bin/env node
// The `bareagent` command: runs the TypeScript client through tsx, no build step needed.
require('tsx/cjs');
require('../src/client.ts');
