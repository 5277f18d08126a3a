/** `npm run db` (at the repository's root) or `npm start` here: the engine in a process of its own (src/cli.ts). */
require('./register.cjs');
require('./src/cli.ts');
