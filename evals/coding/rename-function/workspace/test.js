const assert = require('node:assert');
const { fetchUserName } = require('./src/user');
const { welcome } = require('./src/app');

const ada = { first: 'Ada', last: 'Lovelace' };
assert.strictEqual(fetchUserName(ada), 'Ada Lovelace');
assert.strictEqual(welcome(ada), 'Welcome, Ada Lovelace');
console.log('user: all passed');
