/**
 * How many vowels (a, e, i, o, u, either case) a string holds.
 *
 * @example countVowels('Hello World') // 3
 * @param {string} text
 * @returns {number}
 */
function countVowels(text) {
  throw new Error('not implemented');
}

module.exports = { countVowels };
