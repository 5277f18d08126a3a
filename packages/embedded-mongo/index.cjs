/** The package's entry for Node (`require('@broker/embedded-mongo')`): the sources, compiled on load. */
require('./register.cjs');
module.exports = require('./src/index.ts');
