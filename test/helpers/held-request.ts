import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';

/** A request sent at once whose answer is read only when asked: its head, then its body. */
export interface HeldRequest {
  req: ClientRequest;
  /** Settles with the status line and headers as soon as they arrive. */
  head: Promise<IncomingMessage>;
  /** Reads the whole body (resumes a paused one) and settles with it. */
  body(): Promise<Buffer>;
  /** The same, as UTF-8 text. */
  text(): Promise<string>;
  /** Whether the answer's head has arrived. */
  answered(): boolean;
}

/** Sends `target` (a URL, or options such as a socket path) with `headers` and `body` if any, keeping it in `sent` for the test's clean-up. */
export function holdRequest(target: string | RequestOptions, sent: ClientRequest[], { headers, body }: { headers?: Record<string, string>; body?: string } = {}): HeldRequest {
  const req = typeof target === 'string' ? httpRequest(target, { headers }) : httpRequest({ ...target, headers: { ...target.headers, ...headers } });
  sent.push(req);
  let arrived = false;
  const head = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (res) => {
      arrived = true;
      resolve(res);
    });
    req.on('error', reject);
  });
  req.end(body);
  const read = async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of await head) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  return { req, head, answered: () => arrived, body: read, text: async () => (await read()).toString('utf8') };
}
