/**
 * Pad text on the left with the fill character up to width characters; text
 * already that long or longer comes back as it is.
 *
 * @example padLeft('7', 3, '0') // '007'
 * @example padLeft('hello', 3, '*') // 'hello'
 * @param {string} text
 * @param {number} width
 * @param {string} fill
 * @returns {string}
 */
function padLeft(text, width, fill) {
  throw new Error('not implemented');
}

module.exports = { padLeft };
