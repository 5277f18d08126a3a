import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivery the receiver verified with the standardwebhooks package. */
export interface ReceivedWebhook {
  path: string;
  /** webhook-id: the change event's id. */
  id: string;
  timestamp: number;
  signatures: string[];
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

/** What a route answers; the default is 204. */
export interface RouteAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Hold the answer this long (time-out tests). */
  delayMs?: number;
  /** Hold the answer until this settles (a test's own condition); never answered if it rejects. */
  until?: Promise<unknown>;
}

/**
 * A webhook receiver on 127.0.0.1, as a customer would run one: each path has a secret, and every
 * request is verified with `new Webhook(secret).verify(body, headers)` before it is accepted (a
 * request that fails verification is kept apart and answered 400). Routes can answer errors,
 * redirects or nothing in time.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Requests that failed verification, or came to a path with no secret. */
  readonly rejected: { path: string; reason: string }[] = [];
  /** Every request, verified or not, in arrival order (path and webhook-id). */
  readonly requests: { path: string; id: string | undefined }[] = [];
  private readonly secrets = new Map<string, string[]>();
  private readonly answers = new Map<string, (request: ReceivedWebhook) => RouteAnswer>();
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private readonly timers = new Set<NodeJS.Timeout>();

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** Accepts requests on `path` signed with any of these secrets. */
  expect(path: string, ...secrets: string[]): void {
    this.secrets.set(path, secrets);
  }

  answer(path: string, answer: (request: ReceivedWebhook) => RouteAnswer): void {
    this.answers.set(path, answer);
  }

  on(path: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const id = req.headers['webhook-id'] as string | undefined;
      this.requests.push({ path, id });
      const secrets = this.secrets.get(path);
      if (!secrets) {
        this.rejected.push({ path, reason: 'no secret for this path' });
        res.writeHead(404).end();
        return;
      }
      const headers = { 'webhook-id': id ?? '', 'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''), 'webhook-signature': String(req.headers['webhook-signature'] ?? '') };
      let payload: ReceivedWebhook['payload'] | undefined;
      const reasons: string[] = [];
      for (const secret of secrets) {
        try {
          payload = new Webhook(secret).verify(body, headers) as ReceivedWebhook['payload'];
          break;
        } catch (error) {
          reasons.push((error as Error).message);
        }
      }
      if (!payload) {
        this.rejected.push({ path, reason: reasons.join('; ') });
        res.writeHead(400).end('bad signature');
        return;
      }
      const received: ReceivedWebhook = {
        path,
        id: id!,
        timestamp: Number(headers['webhook-timestamp']),
        signatures: headers['webhook-signature'].split(' '),
        body,
        payload,
        headers: req.headers,
      };
      const answer = this.answers.get(path)?.(received) ?? {};
      const send = () => {
        // Counted when answered to a sender still waiting, as only then is it delivered.
        if (res.destroyed) return;
        if ((answer.status ?? 204) < 300) this.received.push(received);
        res.writeHead(answer.status ?? 204, answer.headers).end(answer.body);
      };
      if (answer.until) {
        answer.until.then(send, () => undefined);
      } else if (answer.delayMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send();
        }, answer.delayMs);
        this.timers.add(timer);
      } else {
        send();
      }
    });
  }
}

/** Waits until `check` passes (it throws until then), failing with its last error after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
