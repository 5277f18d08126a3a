/**
 * Lets Node load this package's TypeScript sources: each .ts file is compiled by SWC as it is
 * required (`@swc/core`: a development dependency, here and at the root, like the package itself). The package ships its sources, never a build (why: README.md, "How the package is
 * compiled"). A loader already in place wins: jest's transform, or the service's own
 * scripts/register-ts.cjs in its child processes; this one is installed only where none is.
 */
const fs = require('node:fs');

if (!require.extensions['.ts']) {
  const { transformSync } = require('@swc/core');
  require.extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
      filename,
      sourceMaps: 'inline',
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}
