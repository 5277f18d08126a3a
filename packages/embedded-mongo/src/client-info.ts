/** One client connection, as commands see it. */
export interface ClientInfo {
  readonly id: number;
  /** `host:port` of the engine as this client reached it (the socket's local end). */
  readonly localAddress: string;
  /** `host:port` of the client (the socket's remote end). */
  readonly remoteAddress: string;
  /** `client.application.name` from the connection's handshake, if the driver sent one. */
  appName: string | undefined;
}
