/**
 * Turn words separated by spaces, hyphens or underscores into camelCase.
 *
 * @example camelCase('hello world') // 'helloWorld'
 * @example camelCase('Foo-bar_baz') // 'fooBarBaz'
 * @param {string} text
 * @returns {string}
 */
function camelCase(text) {
  throw new Error('not implemented');
}

module.exports = { camelCase };
