const assert = require('node:assert');
const { fizzBuzz } = require('./solution');

assert.deepStrictEqual(fizzBuzz(5), ['1', '2', 'Fizz', '4', 'Buzz']);
console.log('ok');
