const assert = require('node:assert');
const { sumDigits } = require('./solution');

assert.strictEqual(sumDigits(1234), 10);
assert.strictEqual(sumDigits(-56), 11);
console.log('ok');
