/**
 * True when every bracket ( [ { in text is closed by its partner in the right
 * order; other characters are ignored.
 *
 * @example isBalanced('(a[b]{c})') // true
 * @example isBalanced('(]') // false
 * @param {string} text
 * @returns {boolean}
 */
function isBalanced(text) {
  throw new Error('not implemented');
}

module.exports = { isBalanced };
