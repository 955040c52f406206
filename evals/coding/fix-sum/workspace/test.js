const assert = require('node:assert');
const { sum } = require('./src/sum');

assert.strictEqual(sum([1, 2, 3, 4]), 10);
assert.strictEqual(sum([]), 0);
console.log('sum: all passed');
