/**
 * The items of an array without repeats, in the order each first appears.
 *
 * @example unique([3, 1, 3, 2, 1]) // [3, 1, 2]
 * @param {Array} items
 * @returns {Array}
 */
function unique(items) {
  throw new Error('not implemented');
}

module.exports = { unique };
