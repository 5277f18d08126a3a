import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './webhook-target';

/** Most bytes of a receiver's answer read (for the delivery log); the rest is not downloaded. */
export const MAX_RESPONSE_BYTES = 4096;

export interface WebhookPost {
  url: URL;
  /** The checked address: the connection goes there whatever DNS answers now. */
  target: CheckedTarget;
  headers: Record<string, string>;
  body: string;
  /** Ends the attempt (its time-out, or the worker stopping). */
  signal: AbortSignal;
}

export interface WebhookAnswer {
  statusCode: number;
  /** The Location header of a redirect (never followed). */
  location?: string;
  /** The start of the answer's body, at most MAX_RESPONSE_BYTES. */
  body: string;
}

/** Keep-alive connection pools, one per scheme, shared by a worker's attempts. */
export interface WebhookAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/**
 * The pools set no limit of sockets per host:port (nor in all): an attempt never waits for a
 * socket. The worker bounds what is in flight (`WEBHOOK_CONCURRENCY` in all,
 * `WEBHOOK_CONCURRENCY_PER_ENDPOINT` per endpoint), and a per-host limit would be shared by every
 * endpoint on that host:port: one that never answers would hold the sockets while its siblings'
 * attempts waited in the agent's queue, their time-out running. `maxFreeSockets` only bounds the
 * idle connections kept per host:port (`maxIdlePerHost`), at most the worker's concurrency.
 */
export function createWebhookAgents(maxIdlePerHost: number): WebhookAgents {
  // An idle connection is dropped before the usual 5 s server keep-alive ends, so a request rarely
  // meets a connection the receiver is closing.
  const options = { keepAlive: true, maxSockets: Infinity, maxTotalSockets: Infinity, maxFreeSockets: maxIdlePerHost, timeout: 4000 };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return { ...agents, destroy: () => Object.values(agents).forEach((agent) => agent.destroy()) };
}

/**
 * POSTs a webhook to the checked address only: the custom `lookup` answers every resolution of the
 * URL's host with that address (TLS still checks the certificate against the host name). Redirects
 * are returned, not followed. A reused keep-alive connection that the receiver had closed is retried
 * once on a new one (nothing was delivered on it).
 */
export async function postWebhook(post: WebhookPost, agents: WebhookAgents): Promise<WebhookAnswer> {
  try {
    return await sendOnce(post, agents);
  } catch (error) {
    if (!(error instanceof StaleConnectionError)) throw error;
    return sendOnce(post, agents);
  }
}

class StaleConnectionError extends Error {}

function pinnedLookup(target: CheckedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

function sendOnce({ url, target, headers, body, signal }: WebhookPost, agents: WebhookAgents): Promise<WebhookAnswer> {
  const secure = url.protocol === 'https:';
  return new Promise<WebhookAnswer>((resolve, reject) => {
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      lookup: pinnedLookup(target),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal,
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && error.code === 'ECONNRESET' && !signal.aborted) reject(new StaleConnectionError(error.message));
      else reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const finish = () => {
        resolve({
          statusCode: response.statusCode ?? 0,
          location: typeof response.headers.location === 'string' ? response.headers.location : undefined,
          body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
        });
      };
      response.on('data', (chunk: Buffer) => {
        if (length >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        length += chunk.length;
        if (length >= MAX_RESPONSE_BYTES) {
          // Enough for the log: stop downloading (the connection is not reused).
          finish();
          response.destroy();
        }
      });
      response.on('end', finish);
      // After the status arrived, a broken body still leaves the status as the answer.
      response.on('error', finish);
      response.on('aborted', finish);
    });
    request.end(body);
  });
}
