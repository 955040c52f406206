const assert = require('node:assert');
const { unique } = require('./solution');

assert.deepStrictEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2]);
console.log('ok');
