const { MAX_ITEMS } = require('./limits');

// The first MAX_ITEMS items of a list.
function take(items) {
  return items.slice(0, MAX_ITEMS);
}

module.exports = { take };
