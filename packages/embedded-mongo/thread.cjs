/** `require('@broker/embedded-mongo/thread')`: the engine in a worker thread, from the sources compiled on load. */
require('./register.cjs');
module.exports = require('./src/thread.ts');
