// True when n is an even integer.
function isEven(n) {
  return n % 2 === 1;
}

module.exports = { isEven };
