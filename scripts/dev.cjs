#!/usr/bin/env node
/** `npm run dev`: the TypeScript compiler in watch mode, and the service restarted on each rebuild. */
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const tsc = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let service;
tsc.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  // tsc prints "Found N errors. Watching for file changes." after every compilation.
  if (/Found 0 errors/.test(String(chunk))) {
    if (service) service.kill('SIGTERM');
    service = spawn(process.execPath, ['--enable-source-maps', 'dist/src/main.js'], { cwd: root, stdio: 'inherit' });
  }
});
const stop = () => {
  if (service) service.kill('SIGTERM');
  tsc.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
