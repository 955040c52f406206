/**
 * The value at a dotted path inside an object, or fallback when any step of
 * the path is missing.
 *
 * @example deepGet({ a: { b: { c: 1 } } }, 'a.b.c', 0) // 1
 * @example deepGet({ a: {} }, 'a.x.y', 'none') // 'none'
 * @param {Object} object
 * @param {string} path
 * @param {*} fallback
 * @returns {*}
 */
function deepGet(object, path, fallback) {
  throw new Error('not implemented');
}

module.exports = { deepGet };
