import { spawn, spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import axios from 'axios';

/**
 * The HTTP clients people use from Node and the shell, each sending one POST the way its users
 * would: Node's fetch (undici), got, axios and curl. A body is described, not held: `head`, then
 * `fill` filler bytes, then `tail`; sent whole (with its Content-Length) or streamed (chunked),
 * so a 100 MB body never sits in memory.
 */

export const CLIENTS = ['fetch', 'got', 'axios', 'curl'] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface BodySpec {
  head: Buffer;
  fill: number;
  tail: Buffer;
  /** Sent as it is produced, without Content-Length (Transfer-Encoding: chunked). */
  streamed?: boolean;
}

export interface ClientRequest {
  url: string;
  headers: Record<string, string>;
  body: BodySpec;
}

/** What the client reported: the answer's status and text, or the error it threw instead. */
export type ClientOutcome = { status: number; text: string } | { error: string };

const BLOCK = Buffer.alloc(64 * 1024, 0x61);

export function bodyLength(body: BodySpec): number {
  return body.head.length + body.fill + body.tail.length;
}

function* bodyChunks(body: BodySpec): Generator<Buffer> {
  yield body.head;
  for (let left = body.fill; left > 0; left -= BLOCK.length) yield left >= BLOCK.length ? BLOCK : BLOCK.subarray(0, left);
  yield body.tail;
}

function bodyBuffer(body: BodySpec): Buffer {
  return Buffer.concat([...bodyChunks(body)]);
}

/** Whether curl is on this machine (its tests are skipped, with the reason, when it is not). */
export function hasCurl(): boolean {
  return spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Sends `request` with `client` `tries` times, one after the other (a streamed body once). */
export async function send(client: ClientName, request: ClientRequest, tries = 1): Promise<ClientOutcome[]> {
  if (request.body.streamed) tries = 1;
  // got's process takes a while to start: it sends every try itself.
  if (client === 'got') {
    const options = { url: request.url, headers: request.headers, streamed: request.body.streamed ?? false, tries };
    return inChild(process.execPath, [path.join(__dirname, 'got-client.mjs'), JSON.stringify(options)], request.body, parseGotOutput);
  }
  const outcomes: ClientOutcome[] = [];
  for (let i = 0; i < tries; i += 1) {
    if (client === 'fetch') outcomes.push(await withFetch(request));
    else if (client === 'axios') outcomes.push(await withAxios(request));
    else outcomes.push(...(await inChild('curl', curlArguments(request), request.body, parseCurlOutput)));
  }
  return outcomes;
}

const errorText = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as { code?: string }).code ?? (error as Error).name}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`;
};

async function withFetch({ url, headers, body }: ClientRequest): Promise<ClientOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      ...(body.streamed ? { body: Readable.toWeb(Readable.from(bodyChunks(body))) as ReadableStream, duplex: 'half' } : { body: bodyBuffer(body) }),
    } as RequestInit);
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { error: errorText(error) };
  }
}

async function withAxios({ url, headers, body }: ClientRequest): Promise<ClientOutcome> {
  try {
    const response = await axios.post<string>(url, body.streamed ? Readable.from(bodyChunks(body)) : bodyBuffer(body), {
      headers,
      responseType: 'text',
      transformResponse: (text: string) => text,
      validateStatus: () => true,
      maxBodyLength: Infinity,
      maxRedirects: 0,
    });
    return { status: response.status, text: response.data };
  } catch (error) {
    return { error: errorText(error) };
  }
}

/** curl reads a whole body from stdin first (`--data-binary @-`); `-T -` streams it, chunked. */
function curlArguments({ url, headers, body }: ClientRequest): string[] {
  const headerArguments = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const bodyArguments = body.streamed ? ['-T', '-', '-X', 'POST'] : ['--data-binary', '@-'];
  return ['--silent', '--show-error', '--write-out', '\n%{http_code}', ...headerArguments, ...bodyArguments, url];
}

function parseCurlOutput(stdout: string, stderr: string, code: number | null): ClientOutcome[] {
  const cut = stdout.lastIndexOf('\n');
  const status = Number(stdout.slice(cut + 1));
  // curl exits non-zero when it could not finish sending, even if it read the answer (and says so).
  if (code !== 0 || !status) return [{ error: `curl exit ${code}: ${stderr.trim()} (status ${status})` }];
  return [{ status, text: stdout.slice(0, cut) }];
}

function parseGotOutput(stdout: string, stderr: string, code: number | null): ClientOutcome[] {
  try {
    return JSON.parse(stdout) as ClientOutcome[];
  } catch {
    return [{ error: `got runner exit ${code}: ${stderr.trim()}` }];
  }
}

/** Runs a client process with the body on its stdin; a client that stops reading it is no error. */
async function inChild(command: string, args: string[], body: BodySpec, parse: (stdout: string, stderr: string, code: number | null) => ClientOutcome[]): Promise<ClientOutcome[]> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  // The client may stop reading its input once it has the answer: EPIPE on stdin is expected.
  const fed = pipeline(Readable.from(bodyChunks(body)), child.stdin).catch(() => undefined);
  const code = await exited;
  await fed;
  return parse(stdout, stderr, code);
}
