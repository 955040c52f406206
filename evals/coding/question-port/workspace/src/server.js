const http = require('node:http');
const { PORT } = require('./settings');

http.createServer((req, res) => res.end('ok')).listen(PORT);
