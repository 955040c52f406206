// Returns the characters of text in reverse order.
function reverse(text) {
  return text.split('').join('');
}

module.exports = { reverse };
