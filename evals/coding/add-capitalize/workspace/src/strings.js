// Upper-cases a phrase and adds an exclamation mark.
function shout(text) {
  return text.toUpperCase() + '!';
}

module.exports = { shout };
