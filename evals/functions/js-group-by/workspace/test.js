const assert = require('node:assert');
const { groupBy } = require('./solution');

assert.deepStrictEqual(groupBy([1, 2, 3, 4], (n) => (n % 2 ? 'odd' : 'even')), { odd: [1, 3], even: [2, 4] });
console.log('ok');
