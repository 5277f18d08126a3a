import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import { CloseCode as ProtocolCloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { RequestAuthenticator } from '../auth';
import type { Config } from '../config';
import { requestBaseUrl, createLoaders, type GraphQLContext } from '../graphql-kit/context';
import { AppError, ErrorCode } from '../errors';
import type { Logger } from '../logger';
import type { Services } from '../services';
import { CloseCode } from './close-codes';
import { authenticateConnection, ConnectionRefused } from './connection-auth';
import { LiveConnection } from './live-connection';
import { createOperationGuards } from './operation-guards';
import { createResultShaping } from './result-format';
import { createSharedSubscribe } from './shared-execution';
import { SubjectLimits } from './subject-limits';
import { lendSubscriptionControls } from './subscription-context';

/** GraphQL's path: subscriptions are served where queries are, as graphql-ws clients expect. */
export const SUBSCRIPTIONS_PATH = '/graphql';

/** How long closing clients get to answer the close frame on shutdown before their sockets are cut. */
const SHUTDOWN_CLOSE_GRACE_MS = 1_000;

export interface SubscriptionServerDeps {
  schema: GraphQLSchema;
  config: Config;
  logger: Logger;
  services: Services;
  authenticate: RequestAuthenticator;
}

export interface SubscriptionServer {
  /** Serves graphql-ws on the WebSocket upgrades of `server` to /graphql; other paths are refused (404). */
  attach(server: HttpServer): void;
  /** Refuses new connections, closes the open ones with 1001, resolves once all are closed. */
  close(): Promise<void>;
  /** What runs now in this process: open WebSocket connections, and the subscriptions on them. */
  stats(): { connections: number; subscriptions: number };
}

type ConnectionParams = Record<string, unknown>;

/**
 * The graphql-ws protocol (graphql-transport-ws: what Apollo Client, urql and Sandbox speak) over
 * `ws`. graphql-ws's own adapter for `ws` writes to the console, turns a send to a closing socket
 * into a 4500 and has no bound on what waits to be sent, so its protocol engine (makeServer) is
 * plugged into a LiveConnection here instead.
 */
export function createSubscriptionServer(deps: SubscriptionServerDeps): SubscriptionServer {
  return new GraphqlWsServer(deps);
}

class GraphqlWsServer implements SubscriptionServer {
  private readonly limits: Config['subscriptions'];
  private readonly log: Logger;
  private readonly subjects: SubjectLimits;
  private readonly checkOperation: ReturnType<typeof createOperationGuards>;
  private readonly shaping: ReturnType<typeof createResultShaping>;
  private readonly connections = new Set<LiveConnection>();
  /** graphql-ws's own record of each connection's running subscriptions (counted by stats()). */
  private readonly subscriptionsOf = new WeakMap<LiveConnection, Record<string, unknown>>();
  private readonly pending: PendingHandshakes;
  /** What ends a connection's place among its address's unauthenticated sockets. */
  private readonly leavePending = new WeakMap<LiveConnection, () => void>();
  private readonly sockets: WebSocketServer;
  private readonly protocol: ReturnType<typeof makeServer<ConnectionParams, LiveConnection>>;
  private closing = false;

  constructor(private readonly deps: SubscriptionServerDeps) {
    const { schema, config, logger } = deps;
    this.limits = config.subscriptions;
    this.log = logger.child({ component: 'subscriptions' });
    this.subjects = new SubjectLimits(this.limits.maxConnectionsPerSubject, config.limits.rateLimitPerMinute);
    this.checkOperation = createOperationGuards(schema, config);
    this.shaping = createResultShaping(this.log, config.limits.responseMaxBytes);
    this.pending = new PendingHandshakes(this.limits.maxPendingPerAddress);
    this.sockets = new WebSocketServer({ noServer: true, maxPayload: this.limits.maxMessageBytes, handleProtocols, perMessageDeflate: false, clientTracking: false });
    this.protocol = makeServer<ConnectionParams, LiveConnection>({
      schema,
      subscribe: createSharedSubscribe(),
      connectionInitWaitTimeout: this.limits.connectionInitTimeoutMs,
      onConnect: (ctx) => this.onConnect(ctx.extra, ctx.connectionParams, () => Object.keys(ctx.subscriptions).length > 0),
      onSubscribe: (ctx, _id, payload) => {
        this.subscriptionsOf.set(ctx.extra, ctx.subscriptions);
        return this.onSubscribe(ctx.extra, Object.keys(ctx.subscriptions).length, payload);
      },
      onNext: (_ctx, _id, _payload, _args, result) => this.shaping.result(result),
      onError: (_ctx, _id, _payload, errors) => this.shaping.errors(errors),
      onComplete: (ctx) => ctx.extra.touch(),
    });
  }

  /** connection_init: the token, then the subject's connection quota. */
  private async onConnect(connection: LiveConnection, params: ConnectionParams | undefined, busy: () => boolean): Promise<boolean> {
    const { config, authenticate } = this.deps;
    try {
      const identity = await authenticateConnection(authenticate, params, config.auth.clockToleranceSeconds);
      if (!connection.open) return false;
      if (!this.subjects.admit(identity.principal.subject)) {
        throw new ConnectionRefused(CloseCode.TooManyConnections, `Too many connections: this token subject holds ${this.limits.maxConnectionsPerSubject} already`);
      }
      connection.socket.once('close', () => this.subjects.release(identity.principal.subject));
      connection.accept(identity, busy);
      this.leavePending.get(connection)?.();
      connection.logger.debug({ subject: identity.principal.subject }, 'WebSocket connection accepted');
      return true;
    } catch (error) {
      if (error instanceof ConnectionRefused) {
        connection.logger.info({ code: error.code, reason: error.message }, 'WebSocket connection refused');
        connection.close(error.code, error.message);
      } else {
        connection.logger.error({ err: error }, 'WebSocket connection_init failed');
        connection.close(CloseCode.InternalServerError, 'Internal server error');
      }
      return false;
    }
  }

  /** subscribe: the connection's and the subject's quotas, then the operation's guards; the execution arguments. */
  private onSubscribe(connection: LiveConnection, running: number, payload: Parameters<ReturnType<typeof createOperationGuards>>[0]) {
    const { schema, config } = this.deps;
    const principal = connection.principal!;
    connection.touch();
    if (running > this.limits.maxSubscriptionsPerConnection) {
      return [tooMany(`Too many subscriptions on this connection: at most ${this.limits.maxSubscriptionsPerConnection} run at once; complete one first`)];
    }
    if (!this.subjects.allowSubscribe(principal.subject)) {
      return [tooMany(`More than ${config.limits.rateLimitPerMinute} subscribe messages in a minute from this token subject: retry after ${this.subjects.retryAfterSeconds(principal.subject)} seconds`)];
    }
    const check = this.checkOperation(payload);
    if ('refused' in check) return check.refused;
    const { document, operationName, variables } = check.checked;
    const contextValue = this.contextFor(connection, principal);
    lendSubscriptionControls(contextValue, { maxQueuedEvents: this.limits.maxQueuedEvents, dropSlowConsumer: () => connection.dropSlowConsumer() });
    return { schema, document, operationName, variableValues: variables, contextValue };
  }

  private contextFor(connection: LiveConnection, principal: GraphQLContext['principal']): GraphQLContext {
    const { services, config } = this.deps;
    return {
      principal,
      services,
      loaders: createLoaders(services),
      config,
      logger: connection.logger,
      requestId: connection.id,
      baseUrl: requestBaseUrl({ headers: connection.request.headers }, config),
      warnings: [],
    };
  }

  /** Plugs an upgraded socket into the protocol engine. */
  private serve(socket: WebSocket, request: IncomingMessage, leave: () => void): void {
    const connection = new LiveConnection(socket, request, this.limits, this.log);
    this.connections.add(connection);
    this.leavePending.set(connection, leave);
    // Frames the peer breaks (too large: 1009, not WebSocket: 1002) are closed by `ws` itself.
    socket.on('error', (error) => connection.logger.debug({ err: { message: error.message } }, 'WebSocket protocol error'));
    const closed = this.protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) => connection.send(data),
        close: (code, reason) => connection.close(code ?? ProtocolCloseCode.InternalServerError, reason ?? ''),
        onMessage: (handle) => socket.on('message', (data) => handle(String(data)).catch((error: unknown) => failedMessage(connection, error))),
      },
      connection,
    );
    socket.once('close', (code, reason) => {
      this.connections.delete(connection);
      connection.dispose();
      connection.logger.debug({ code, reason: String(reason) }, 'WebSocket connection closed');
      closed(code, String(reason)).catch((error: unknown) => connection.logger.error({ err: error }, 'ending the subscriptions of a closed WebSocket failed'));
    });
  }

  stats() {
    let subscriptions = 0;
    for (const connection of this.connections) subscriptions += Object.keys(this.subscriptionsOf.get(connection) ?? {}).length;
    return { connections: this.connections.size, subscriptions };
  }

  attach(server: HttpServer): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const path = (request.url ?? '').split('?', 1)[0];
      if (path !== SUBSCRIPTIONS_PATH) return refuseUpgrade(socket, 404, `No WebSocket endpoint at this path: subscriptions are served on ${SUBSCRIPTIONS_PATH}`);
      if (this.closing) return refuseUpgrade(socket, 503, 'The service is shutting down: reconnect shortly');
      const leave = this.pending.enter(request.socket.remoteAddress ?? '');
      if (!leave) {
        return refuseUpgrade(socket, 429, `Too many WebSockets from this address await authentication (at most ${this.limits.maxPendingPerAddress}): send connection_init on those first`);
      }
      // The raw socket closes with the WebSocket, a failed handshake, or a dropped peer.
      socket.once('close', leave);
      this.sockets.handleUpgrade(request, socket, head, (websocket) => {
        if (this.closing) return websocket.close(CloseCode.GoingAway, 'The service is shutting down');
        this.serve(websocket, request, leave);
      });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.connections].map(closeForShutdown));
  }
}

/** A message the protocol engine could not handle: the client's mistake (4400) or ours (4500). */
function failedMessage(connection: LiveConnection, error: unknown): void {
  // graphql-ws throws this for a well-formed message only a server sends (next, error…): the client's mistake.
  if (error instanceof Error && /^Unexpected message of type/.test(error.message)) {
    connection.close(ProtocolCloseCode.BadRequest, 'Invalid message received');
    return;
  }
  connection.logger.error({ err: error }, 'a WebSocket message could not be handled');
  connection.close(ProtocolCloseCode.InternalServerError, 'Internal server error');
}

/** Closes with 1001 and resolves once the socket is closed; a peer that does not answer is cut after a grace. */
function closeForShutdown(connection: LiveConnection): Promise<void> {
  return new Promise<void>((resolve) => {
    if (connection.socket.readyState === connection.socket.CLOSED) return resolve();
    connection.socket.once('close', () => resolve());
    connection.close(CloseCode.GoingAway, 'The service is shutting down: reconnect');
    setTimeout(() => connection.socket.terminate(), SHUTDOWN_CLOSE_GRACE_MS).unref();
  });
}

function tooMany(message: string): AppError {
  return new AppError(ErrorCode.TOO_MANY_REQUESTS, message);
}

/**
 * Sockets each client address holds before they are authenticated: an anonymous client may keep
 * each for WS_CONNECTION_INIT_TIMEOUT_MS, so their number is bounded per address.
 */
class PendingHandshakes {
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly maxPerAddress: number) {}

  /** Counts one more socket of `address`; undefined when it holds the most already. The returned leave() is idempotent. */
  enter(address: string): (() => void) | undefined {
    const count = this.byAddress.get(address) ?? 0;
    if (count >= this.maxPerAddress) return undefined;
    this.byAddress.set(address, count + 1);
    let inside = true;
    return () => {
      if (!inside) return;
      inside = false;
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
    };
  }
}

const UPGRADE_REFUSALS = {
  404: { reason: 'Not Found', code: ErrorCode.NOT_FOUND },
  429: { reason: 'Too Many Requests', code: ErrorCode.TOO_MANY_REQUESTS },
  503: { reason: 'Service Unavailable', code: ErrorCode.SERVICE_UNAVAILABLE },
} as const;

/** An HTTP answer on a socket that asked for an upgrade, in the service's error shape. */
function refuseUpgrade(socket: Duplex, status: keyof typeof UPGRADE_REFUSALS, message: string): void {
  const { reason, code } = UPGRADE_REFUSALS[status];
  const body = JSON.stringify({ error: { code, message, details: [] } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
