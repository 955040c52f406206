const assert = require('node:assert');
const { countVowels } = require('./solution');

assert.strictEqual(countVowels('Hello World'), 3);
console.log('ok');
