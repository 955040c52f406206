const assert = require('node:assert');
const { deepGet } = require('./solution');

assert.strictEqual(deepGet({ a: { b: { c: 1 } } }, 'a.b.c', 0), 1);
assert.strictEqual(deepGet({ a: {} }, 'a.x.y', 'none'), 'none');
console.log('ok');
