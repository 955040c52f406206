function formatAge(age) {
  return age + ' years';
}

module.exports = { formatAge };
