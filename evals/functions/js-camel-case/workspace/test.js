const assert = require('node:assert');
const { camelCase } = require('./solution');

assert.strictEqual(camelCase('hello world'), 'helloWorld');
assert.strictEqual(camelCase('Foo-bar_baz'), 'fooBarBaz');
console.log('ok');
