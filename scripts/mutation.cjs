// `npm run mutation`: StrykerJS on the pure modules (stryker.config.mjs; CONTRIBUTING.md, "Mutation
// testing"). StrykerJS 10 refuses Node older than 22. Under an older Node this script takes the Node
// that .ci/run installs into .ci/node when it is there, and otherwise says what to do.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const MIN_NODE = 22;
const root = path.join(__dirname, '..');
const stryker = path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');

let node = process.execPath;
if (Number(process.versions.node.split('.')[0]) < MIN_NODE) {
  const ciNode = path.join(root, '.ci', 'node', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
  if (process.platform !== 'linux' || !fs.existsSync(ciNode)) {
    console.error(
      `npm run mutation needs Node ${MIN_NODE} or later (StrykerJS 10 refuses older ones); this is Node ${process.versions.node}.\n` +
        `Put Node ${MIN_NODE}+ first in PATH, or run .ci/run once: it installs Node 24 into .ci/node, which this script then uses.`,
    );
    process.exit(1);
  }
  node = ciNode;
  console.error(`Node ${process.versions.node} is older than ${MIN_NODE}: running StrykerJS on ${path.relative(root, ciNode)}`);
}

// The Node chosen first in PATH too, for anything the run starts by name.
const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };

// `npm run mutation` runs every module; `npm run mutation -- date-range` one (names: stryker.modules.cjs).
// Arguments starting with - go to Stryker (`-- date-range --force` reruns every mutant).
const modules = Object.keys(require('../stryker.modules.cjs'));
const args = process.argv.slice(2);
const named = args.filter((arg) => !arg.startsWith('-'));
const options = args.filter((arg) => arg.startsWith('-'));
const unknown = named.filter((name) => !modules.includes(name));
if (unknown.length) {
  console.error(`no module ${unknown.join(', ')} to mutate: the modules are ${modules.join(', ')}`);
  process.exit(1);
}
let failed = 0;
for (const name of named.length ? named : modules) {
  console.error(`\n=== mutation testing: ${name} ===`);
  const result = spawnSync(node, [stryker, 'run', ...options], { cwd: root, env: { ...env, MUTATION_MODULE: name }, stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
