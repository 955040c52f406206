// 8080 is taken by the proxy.
module.exports = { PORT: 8081 };
