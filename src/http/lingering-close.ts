import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { LingerConfig } from '../config';

/**
 * Answers sent before the request's body has arrived in full (a refused upload, a missing token, a
 * wrong Content-Type, any error decided on the headers) must reach a client that is still sending.
 * Closing the socket then would leave the unread body in the kernel, which answers it with a reset,
 * and the client's kernel drops the answer it had not read yet: Node's fetch, got and axios report
 * EPIPE instead of the status. So, as RFC 9112 §9.6 and nginx's `lingering_close` describe:
 * the answer carries `Connection: close`, the rest of the body is read and dropped (whoever was
 * reading it stops), and once the answer is out the connection closes its sending side and goes on
 * reading until the body ends or the client closes, at most `maxMs` and `maxBytes`; then it is
 * closed. A client that reads its answer stops sending, so the lingering is short; one that sends
 * for ever is cut off at a cap. At most `maxConnections` linger at once. The dropping runs in the
 * HTTP parser a socket read at a time, so it never holds the event loop.
 *
 * Returns the middleware to mount before any other: it watches every request that has a body.
 */
export function lingerAfterEarlyAnswers(config: LingerConfig) {
  const lingering = new Set<Socket>();

  function answeredEarly(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Connection', 'close');
    // A parser that gave up (busboy, raw-body) may have paused the body: let the rest flow, unread.
    req.unpipe();
    req.resume();
    // Node calls destroySoon on the socket once the answer of a closing connection is written.
    const socket = req.socket;
    socket.destroySoon = () => linger(socket, req);
  }

  function linger(socket: Socket, req: IncomingMessage): void {
    const closeWhenWritten = () => Socket.prototype.destroySoon.call(socket);
    if (req.complete || lingering.size >= config.maxConnections) {
      closeWhenWritten();
      return;
    }
    lingering.add(socket);
    const start = socket.bytesRead;
    const stop = (close: () => void) => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', bodyEnded);
      lingering.delete(socket);
      close();
    };
    const cut = () => stop(() => socket.destroy());
    const count = () => {
      if (socket.bytesRead - start > config.maxBytes) cut();
    };
    // Everything was read: nothing left for the kernel to reset, close as usual.
    const bodyEnded = () => stop(closeWhenWritten);
    const timer = setTimeout(cut, config.maxMs);
    timer.unref();
    req.on('data', count);
    req.once('end', bodyEnded);
    socket.once('close', () => stop(() => undefined));
    // Half-close: the answer is followed by the end of the stream, and reading goes on.
    socket.end();
  }

  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (hasBody(req)) {
      const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
      let written = false;
      // Every answer's headers go out through writeHead (res.end calls it when nobody did).
      res.writeHead = function writeHeadLingering(this: ServerResponse, ...args: unknown[]) {
        if (!written) {
          written = true;
          if (!req.complete) answeredEarly(req, res);
        }
        return writeHead.apply(this, args);
      } as ServerResponse['writeHead'];
    }
    next();
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
