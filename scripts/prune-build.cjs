'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** What tsc writes for a source `X.ts`: `X.js`, `X.js.map`, `X.d.ts`, `X.d.ts.map`. */
const OUTPUT = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

/**
 * Deletes from `dist/` the compiled files whose TypeScript source is gone (and the folders left
 * empty). tsc never deletes an output, and Node resolves `require('../config')` to a leftover
 * `dist/src/config.js` before the `dist/src/config/index.js` of the folder that replaced it: after
 * src/config.ts became src/config/, a build kept running the old file, silently. Called by every
 * build (scripts/start.cjs). Only compiled outputs are touched; anything else in dist/ stays.
 */
function pruneBuild(root, folders) {
  const removed = [];
  for (const folder of folders) prune(path.join(root, 'dist', folder), path.join(root, folder), removed);
  return removed;
}

function prune(built, source, removed) {
  let entries;
  try {
    entries = fs.readdirSync(built, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const at = path.join(built, entry.name);
    if (entry.isDirectory()) {
      prune(at, path.join(source, entry.name), removed);
      if (fs.readdirSync(at).length === 0) fs.rmdirSync(at);
    } else if (OUTPUT.test(entry.name) && !fs.existsSync(path.join(source, entry.name.replace(OUTPUT, '.ts')))) {
      fs.rmSync(at);
      removed.push(at);
    }
  }
}

module.exports = { pruneBuild };
