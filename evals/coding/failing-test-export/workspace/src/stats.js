function max(values) {
  return Math.max(...values);
}

function min(values) {
  return Math.min(...values);
}

module.exports = { min };
