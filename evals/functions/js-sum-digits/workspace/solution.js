/**
 * The sum of the decimal digits of a whole number (its sign ignored).
 *
 * @example sumDigits(1234) // 10
 * @example sumDigits(-56) // 11
 * @param {number} n
 * @returns {number}
 */
function sumDigits(n) {
  throw new Error('not implemented');
}

module.exports = { sumDigits };
