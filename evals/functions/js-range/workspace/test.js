const assert = require('node:assert');
const { range } = require('./solution');

assert.deepStrictEqual(range(0, 5), [0, 1, 2, 3, 4]);
assert.deepStrictEqual(range(1, 10, 3), [1, 4, 7]);
console.log('ok');
