const assert = require('node:assert');
const { padLeft } = require('./solution');

assert.strictEqual(padLeft('7', 3, '0'), '007');
assert.strictEqual(padLeft('hello', 3, '*'), 'hello');
console.log('ok');
