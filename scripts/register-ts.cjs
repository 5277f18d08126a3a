/**
 * Lets a child `node` process run the TypeScript sources directly (node -r this-file src/main.ts),
 * compiled on load by SWC exactly as jest compiles them. Used by the tests that start the real
 * entry point as a process (start-up, bad configuration, graceful shutdown), by the benchmark's
 * servers. (The embedded engine, packages/embedded-mongo, has a loader of its own for its
 * worker thread and its command: packages/embedded-mongo/register.cjs.)
 */
const fs = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
