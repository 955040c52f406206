/**
 * The numbers from start up to but not including end, step apart (step is
 * positive and defaults to 1).
 *
 * @example range(0, 5) // [0, 1, 2, 3, 4]
 * @example range(1, 10, 3) // [1, 4, 7]
 * @param {number} start
 * @param {number} end
 * @param {number} [step]
 * @returns {number[]}
 */
function range(start, end, step) {
  throw new Error('not implemented');
}

module.exports = { range };
