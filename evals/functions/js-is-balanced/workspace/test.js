const assert = require('node:assert');
const { isBalanced } = require('./solution');

assert.strictEqual(isBalanced('(a[b]{c})'), true);
assert.strictEqual(isBalanced('(]'), false);
console.log('ok');
