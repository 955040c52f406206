/**
 * The FizzBuzz words from 1 to n: 'Fizz' for multiples of 3, 'Buzz' for
 * multiples of 5, 'FizzBuzz' for both, else the number as a string.
 *
 * @example fizzBuzz(5) // ['1', '2', 'Fizz', '4', 'Buzz']
 * @param {number} n
 * @returns {string[]}
 */
function fizzBuzz(n) {
  throw new Error('not implemented');
}

module.exports = { fizzBuzz };
