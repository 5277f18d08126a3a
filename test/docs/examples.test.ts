import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, killAll, ROOT, startTypeScript, waitFor, type Started } from '../app/child-processes';

jest.setTimeout(240_000);

/** The shell blocks a reader is told to run against `npm start`: a ```sh fence right after `<!-- example -->`. */
function documents(): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir))) {
      const relative = path.join(dir, entry);
      if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
      else if (entry.endsWith('.md')) files.push(relative);
    }
  };
  walk('docs');
  return files;
}

/** Every ```sh fence, with the comment line before it (indented fences of list items included). */
function shellBlocks(): { file: string; line: number; marker: string; code: string }[] {
  return documents().flatMap((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    return [...text.matchAll(/^([^\n]*)\n( *)```sh\n([\s\S]*?)^\2```/gm)].map((match) => ({
      file,
      line: text.slice(0, match.index).split('\n').length + 1,
      marker: match[1].trim(),
      code: match[3].replace(new RegExp(`^${match[2]}`, 'gm'), ''),
    }));
  });
}

/** The shell blocks a reader is told to run against `npm start`: marked `<!-- example -->`. */
function examples() {
  return shellBlocks().filter((block) => block.marker === '<!-- example -->');
}

function haveTool(name: string): boolean {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const blocks = examples();
const tools = ['bash', 'curl'].filter((tool) => !haveTool(tool));
if (tools.length) console.warn(`SKIPPED test/docs/examples.test.ts: ${tools.join(' and ')} missing (install them: apt-get install -y ${tools.join(' ')})`);
const describeWithTools = tools.length ? describe.skip : describe;

/** Runs one block as a reader would paste it: bash, stopping at the first failing command. */
function runBlock(code: string, env: Record<string, string>, cwd: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const shell = spawn('bash', ['-e', '-o', 'pipefail', '-c', code], { cwd, env });
    let output = '';
    shell.stdout.on('data', (chunk) => (output += chunk));
    shell.stderr.on('data', (chunk) => (output += chunk));
    shell.on('close', (status) => resolve({ status, output }));
  });
}

describeWithTools('the shell examples of README.md and docs/, against a fresh `npm start`', () => {
  let service: Started;
  let port: number;
  let token: string;
  let work: string;

  beforeAll(async () => {
    port = await freePort();
    work = mkdtempSync(path.join(os.tmpdir(), 'broker-examples-'));
    // As `npm start` runs it: development, the embedded engine with its demo data, a printed token.
    service = startTypeScript('src/main.ts', [], { HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: 'warn' });
    await waitFor(() => /export TOKEN=\S+/.test(service.output()) || service.child.exitCode !== null, 180_000);
    token = /export TOKEN=(\S+)/.exec(service.output())?.[1] ?? '';
    if (!token) throw new Error(`the service printed no token: ${service.output()}`);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200, 60_000);
  });

  afterAll(async () => {
    await killAll();
    if (work && existsSync(work)) rmSync(work, { recursive: true, force: true });
  });

  it('every shell block is either an example or says why it is not run', () => {
    const unmarked = shellBlocks().filter((block) => block.marker !== '<!-- example -->' && !/^<!-- not an example: .+ -->$/.test(block.marker));
    expect(unmarked.map((block) => `${block.file}:${block.line}`)).toEqual([]);
  });

  it('finds the marked examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.map((block) => block.file)).toEqual(expect.arrayContaining(['README.md', 'docs/rest-api.md']));
  });

  it.each(blocks.map((block) => [`${block.file}:${block.line}`, block] as const))('%s runs as written', async (_where, block) => {
    // The only change: the port of this test's service instead of the documented 4000.
    const code = block.code.replaceAll('localhost:4000', `127.0.0.1:${port}`);
    const { status, output } = await runBlock(code, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TOKEN: token }, work);
    if (status !== 0) throw new Error(`exit ${status}:\n${output}`);
  });
});
