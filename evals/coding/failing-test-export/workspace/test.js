const assert = require('node:assert');
const { max, min } = require('./src/stats');

assert.strictEqual(max([1, 5, 3]), 5);
assert.strictEqual(min([1, 5, 3]), 1);
console.log('stats: all passed');
