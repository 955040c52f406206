module.exports = 5;
