import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './child-processes';

jest.setTimeout(120_000);

const run = promisify(execFile);

/**
 * `npm run build` (scripts/start.cjs --build) in a scratch project of two modules, with the real
 * build script and TypeScript: a module moved from `src/config.ts` to `src/config/index.ts` must
 * not leave its old output behind, since Node resolves `require('./config')` to a leftover
 * `dist/src/config.js` before `dist/src/config/index.js` (this happened: the service ran an old
 * configuration module on a developer's machine after such a move).
 */
describe('npm run build', () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'build-test-'));
    mkdirSync(path.join(project, 'scripts'));
    mkdirSync(path.join(project, 'src'));
    for (const script of ['start.cjs', 'prune-build.cjs']) cpSync(path.join(ROOT, 'scripts', script), path.join(project, 'scripts', script));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    writeFileSync(
      path.join(project, 'tsconfig.build.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', outDir: 'dist', rootDir: '.', sourceMap: true, types: [], incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo-build' }, include: ['src'] }),
    );
    writeFileSync(path.join(project, 'src', 'main.ts'), "import { where } from './config';\nconsole.log(where);\n");
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const build = () => run(process.execPath, [path.join(project, 'scripts', 'start.cjs'), '--build'], { cwd: project });
  const started = async () => (await run(process.execPath, [path.join(project, 'dist', 'src', 'main.js')])).stdout.trim();

  it('removes the outputs of a source that is gone, so a module moved into a folder runs its new code', async () => {
    writeFileSync(path.join(project, 'src', 'config.ts'), "export const where = 'file';\n");
    await build();
    expect(await started()).toBe('file');
    mkdirSync(path.join(project, 'dist', 'src', 'kept'));
    writeFileSync(path.join(project, 'dist', 'src', 'kept', 'data.json'), '{}');

    rmSync(path.join(project, 'src', 'config.ts'));
    mkdirSync(path.join(project, 'src', 'config'));
    writeFileSync(path.join(project, 'src', 'config', 'index.ts'), "export const where = 'folder';\n");
    const { stderr } = await build();

    expect(stderr).toContain('removed 2 compiled file(s) whose source is gone');
    expect(existsSync(path.join(project, 'dist', 'src', 'config.js'))).toBe(false);
    expect(existsSync(path.join(project, 'dist', 'src', 'config.js.map'))).toBe(false);
    expect(await started()).toBe('folder');
    // Only compiled outputs of missing sources go: the rest of dist/ is left alone.
    expect(existsSync(path.join(project, 'dist', 'src', 'main.js'))).toBe(true);
    expect(existsSync(path.join(project, 'dist', 'src', 'kept', 'data.json'))).toBe(true);
  });

  it('removes a folder whose sources are all gone', async () => {
    mkdirSync(path.join(project, 'src', 'old'));
    writeFileSync(path.join(project, 'src', 'old', 'thing.ts'), 'export const thing = 1;\n');
    await build();
    expect(existsSync(path.join(project, 'dist', 'src', 'old', 'thing.js'))).toBe(true);

    rmSync(path.join(project, 'src', 'old'), { recursive: true });
    await build();
    expect(existsSync(path.join(project, 'dist', 'src', 'old'))).toBe(false);
  });
});
