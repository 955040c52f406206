const { getUserName } = require('./user');

function welcome(user) {
  return 'Welcome, ' + getUserName(user);
}

module.exports = { welcome };
