const assert = require('node:assert');
const { titleCase } = require('./solution');

assert.strictEqual(titleCase('the QUICK brown fox'), 'The Quick Brown Fox');
console.log('ok');
