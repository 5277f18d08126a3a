import net from 'node:net';
import type { Document } from 'bson';
import type { ClientInfo, EngineState } from './command-context';
import { runCommand } from './command-dispatcher';
import { errorReply, CommandError, ErrorCode } from './errors';
import { CloseConnectionSignal } from './fail-points';
import { decodeRequest, encodeLegacyReply, encodeMsgReply, OpCode, readHeader, type Request } from './wire-protocol';

const MAX_MESSAGE_BYTES = 48_000_000;
const MIN_MESSAGE_BYTES = 16;

/**
 * One client connection: collects bytes into frames and answers them strictly in order (a
 * command may wait, e.g. for the transaction lock, and later frames queue behind it).
 */
class ClientConnection {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly client: ClientInfo;

  constructor(
    private readonly socket: net.Socket,
    private readonly engine: EngineState,
    readonly id: number,
    private readonly nextRequestId: () => number,
    localAddress: string,
  ) {
    this.client = { id, localAddress, remoteAddress: hostPort(socket.remoteAddress, socket.remotePort), appName: undefined };
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', (error) => engine.logger.debug({ err: error, connectionId: id }, 'embedded mongo client socket error'));
  }

  private receive(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= 4) {
      const length = this.peekLength();
      if (length < MIN_MESSAGE_BYTES || length > MAX_MESSAGE_BYTES) {
        this.engine.logger.warn({ connectionId: this.id, length }, 'embedded mongo dropped a connection sending an invalid message length');
        this.pending = [];
        this.pendingBytes = 0;
        this.socket.destroy();
        return;
      }
      // Large messages arrive in many chunks: join them only once the whole frame is here.
      if (this.pendingBytes < length) return;
      const buffered = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
      const frame = buffered.subarray(0, length);
      const rest = buffered.subarray(length);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.queue = this.queue
        .then(() => this.handleFrame(frame))
        .catch((error: unknown) => {
          // Even the error reply failed (e.g. it could not be encoded): this connection's state is
          // unknown, so drop it; the driver reconnects. Never a rejection that ends the process.
          this.engine.logger.error({ err: error, connectionId: this.id }, 'embedded mongo dropped a connection after a failed reply');
          this.socket.destroy();
        });
    }
  }

  private peekLength(): number {
    const first = this.pending[0];
    if (first.length >= 4) return first.readInt32LE(0);
    const head = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [head];
    return head.readInt32LE(0);
  }

  private async handleFrame(frame: Buffer): Promise<void> {
    let request: Request;
    try {
      request = decodeRequest(frame);
    } catch (error) {
      // The frame boundary is known, so the client gets an error reply and the connection lives on.
      const header = readHeader(frame);
      this.engine.logger.warn({ err: error, connectionId: this.id }, 'embedded mongo received a malformed message');
      const reply = errorReply(new CommandError(ErrorCode.FailedToParse, `malformed message: ${(error as Error).message}`));
      this.write(header.opCode === OpCode.QUERY ? encodeLegacyReply(this.nextRequestId(), header.requestId, reply, true) : encodeMsgReply(this.nextRequestId(), header.requestId, reply));
      return;
    }
    try {
      await this.answer(request);
    } catch (error) {
      if (error instanceof CloseConnectionSignal) {
        // A fail point asked for it (closeConnection): the client sees a network error, no reply.
        this.pending = [];
        this.pendingBytes = 0;
        this.socket.destroy();
        return;
      }
      this.engine.logger.error({ err: error, connectionId: this.id }, 'embedded mongo failed to answer a request');
      this.write(encodeMsgReply(this.nextRequestId(), request.header.requestId, errorReply(error)));
    }
  }

  private async answer(request: Request): Promise<void> {
    if (request.kind === 'unsupported') {
      this.engine.logger.warn({ connectionId: this.id, opCode: request.header.opCode }, 'embedded mongo closed a connection using an unsupported opcode');
      this.socket.destroy();
      return;
    }
    if (request.kind === 'query') {
      const database = request.namespace.split('.')[0];
      const reply = request.namespace.endsWith('.$cmd')
        ? await this.run(database, request.command)
        : { $err: 'legacy OP_QUERY reads are not supported', code: ErrorCode.CommandNotSupported, ok: 0 };
      this.write(encodeLegacyReply(this.nextRequestId(), request.header.requestId, reply, reply.ok === 0 && '$err' in reply));
      return;
    }
    const database = typeof request.command.$db === 'string' ? request.command.$db : 'admin';
    const reply: Document = await this.run(database, request.command);
    if (request.moreToCome) return;
    this.write(encodeMsgReply(this.nextRequestId(), request.header.requestId, reply));
  }

  /**
   * Runs a command; as a replica-set member, first takes in the client's `$clusterTime` and checks a
   * read concern's `afterClusterTime`, then stamps the reply, errors included, with the
   * `operationTime` and `$clusterTime` every MongoDB replica-set reply carries.
   */
  private async run(database: string, command: Document): Promise<Document> {
    const { topology } = this.engine;
    if (topology.kind !== 'replicaSet') return runCommand(this.engine, database, command, this.client);
    let reply: Document;
    try {
      topology.clock.receive(command);
      reply = await runCommand(this.engine, database, command, this.client);
    } catch (error) {
      if (error instanceof CloseConnectionSignal) throw error;
      reply = errorReply(error);
    }
    return { ...reply, operationTime: topology.clock.tick(), $clusterTime: topology.clock.gossip() };
  }

  private write(buffer: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(buffer);
  }
}

export interface WireServer {
  port: number;
  close(): Promise<void>;
  connectionCount(): number;
}

/** `host:port`, with an IPv6 host in brackets and an IPv4-mapped one as plain IPv4. */
function hostPort(address: string | undefined, port: number | undefined): string {
  const host = (address ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `${host.includes(':') ? `[${host}]` : host}:${port ?? 0}`;
}

/**
 * Listens for MongoDB clients and hands each frame to the command dispatcher. On a wildcard
 * interface each connection is told the address it reached (its socket's local end) as the
 * engine's own (`me`, `hosts`), so a client from another machine is never sent to loopback.
 */
export async function listenForClients(engine: EngineState, host: string, port: number): Promise<WireServer> {
  const wildcard = host === '0.0.0.0' || host === '::';
  const sockets = new Set<net.Socket>();
  let connectionIds = 0;
  let requestIds = 0;
  const nextRequestId = () => (requestIds = (requestIds + 1) & 0x7fffffff);
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const localAddress = wildcard ? hostPort(socket.localAddress, socket.localPort) : engine.address();
    new ClientConnection(socket, engine, ++connectionIds, nextRequestId, localAddress);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => engine.logger.error({ err: error }, 'embedded mongo server error'));
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    port: boundPort,
    connectionCount: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
