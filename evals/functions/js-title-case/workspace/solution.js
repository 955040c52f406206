/**
 * Upper-case the first letter of each word and lower-case the rest; words are
 * separated by single spaces.
 *
 * @example titleCase('the QUICK brown fox') // 'The Quick Brown Fox'
 * @param {string} text
 * @returns {string}
 */
function titleCase(text) {
  throw new Error('not implemented');
}

module.exports = { titleCase };
