/**
 * Lets a child `node` process run the TypeScript sources directly (node -r this-file src/main.ts),
 * compiled on load by SWC exactly as jest compiles them. Used by the tests that start the real
 * entry point as a process (start-up, bad configuration, graceful shutdown), by the benchmark's
 * servers, and by the embedded engine's worker thread when it starts from the sources
 * (src/db/embedded/thread.ts): a worker shares no module loader with its parent.
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
