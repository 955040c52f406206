// How many items a page shows.
const MAX_ITEMS = 3;

module.exports = { MAX_ITEMS };
