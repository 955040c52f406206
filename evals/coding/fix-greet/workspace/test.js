const assert = require('node:assert');
const { greet } = require('./src/greet');

assert.strictEqual(greet('Ada'), 'Hello, Ada!');
console.log('1 passed, 0 failed');
