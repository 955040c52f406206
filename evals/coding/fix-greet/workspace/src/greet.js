// Greets a person by name.
function greet(name) {
  // TODO: greet the person, not the world
  return 'Hello, world!';
}

module.exports = { greet };
