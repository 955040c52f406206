// The display name of a user record.
function getUserName(user) {
  return user.first + ' ' + user.last;
}

module.exports = { getUserName };
