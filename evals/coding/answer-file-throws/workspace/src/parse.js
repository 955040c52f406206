function parseName(text) {
  return text.trim();
}

function parseAge(text) {
  const age = Number(text);
  if (!Number.isInteger(age) || age < 0) throw new Error('invalid age');
  return age;
}

module.exports = { parseName, parseAge };
