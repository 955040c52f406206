const assert = require('node:assert');
const { reverse } = require('./src/reverse');

assert.strictEqual(reverse('abc'), 'cba');
assert.strictEqual(reverse(''), '');
console.log('reverse: all passed');
