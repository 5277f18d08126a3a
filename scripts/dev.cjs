#!/usr/bin/env node
/** `npm run dev`: the TypeScript compiler in watch mode, and the service restarted on each rebuild. */
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** The service's V8 flags, as `npm start` gives them (scripts/v8-flags.json). */
const SERVICE_V8_FLAGS = require('./v8-flags.json').service;
const tsc = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let service;
tsc.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  // tsc prints "Found N errors. Watching for file changes." after every compilation.
  if (/Found 0 errors/.test(String(chunk))) {
    const previous = service;
    const startService = () => {
      service = spawn(process.execPath, ['--enable-source-maps', ...SERVICE_V8_FLAGS, 'dist/src/main.js'], { cwd: root, stdio: 'inherit' });
    };
    // The old service drains and frees the port before the new one listens.
    if (previous && previous.exitCode === null && previous.signalCode === null) {
      previous.once('exit', startService);
      previous.kill('SIGTERM');
    } else startService();
  }
});
// Wait for the service's graceful shutdown, so no node process outlives this one.
const stop = () => {
  tsc.kill('SIGTERM');
  if (!service || service.exitCode !== null || service.signalCode !== null) process.exit(0);
  service.once('exit', () => process.exit(0));
  service.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
