import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, type AppError } from '../errors';

/** The declared Content-Length, or undefined for a chunked body (Node has already refused a malformed one). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/** Why an upload's work stopped: nobody is left to read the answer. */
export function clientGone(): AppError {
  return badRequest('The client closed the connection before the answer was sent');
}

/**
 * Fires when the client goes away (the connection closes) before its answer was sent, so work done
 * only for that answer (reading, parsing) can stop. The listener lives on the response, which ends
 * with the request: nothing accumulates on a kept-alive socket.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(clientGone());
  });
  return controller.signal;
}
