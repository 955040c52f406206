const config = require('./config.json');
console.log(`${config.name} on port ${config.port}`);
