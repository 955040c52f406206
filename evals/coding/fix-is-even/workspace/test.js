const assert = require('node:assert');
const { isEven } = require('./src/parity');

assert.strictEqual(isEven(4), true);
assert.strictEqual(isEven(5), false);
console.log('parity: all passed');
