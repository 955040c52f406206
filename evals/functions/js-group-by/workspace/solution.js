/**
 * Group items by the key a function gives each: an object from each key to
 * the array of its items, in their order.
 *
 * @example groupBy([1, 2, 3, 4], (n) => (n % 2 ? 'odd' : 'even')) // { odd: [1, 3], even: [2, 4] }
 * @param {Array} items
 * @param {Function} keyOf
 * @returns {Object}
 */
function groupBy(items, keyOf) {
  throw new Error('not implemented');
}

module.exports = { groupBy };
