/**
 * What one token subject may hold and do over WebSocket in this process: at most `maxConnections`
 * open connections, and at most `subscribesPerMinute` subscribe messages (RATE_LIMIT_PER_MINUTE, the
 * budget HTTP gives a subject; each one is parsed, validated and may read the database, like a
 * request). Like the HTTP rate limit it is counted in this process's memory: with N processes
 * behind a load balancer a subject may hold up to N times as much.
 */
export class SubjectLimits {
  private readonly connections = new Map<string, number>();
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly maxConnections: number,
    /** 0: no limit. */
    private readonly subscribesPerMinute: number,
  ) {}

  /** Counts one more connection of `subject`, unless it has the most it may have. */
  admit(subject: string): boolean {
    const open = this.connections.get(subject) ?? 0;
    if (open >= this.maxConnections) return false;
    this.connections.set(subject, open + 1);
    return true;
  }

  release(subject: string): void {
    const open = (this.connections.get(subject) ?? 0) - 1;
    if (open > 0) {
      this.connections.set(subject, open);
      return;
    }
    this.connections.delete(subject);
    // Kept until its minute is over: closing and reopening a connection must not reset the count.
    const window = this.windows.get(subject);
    if (window) setTimeout(() => this.forgetWindow(subject, window), Math.max(0, window.startedAt + 60_000 - Date.now())).unref();
  }

  private forgetWindow(subject: string, window: { startedAt: number }): void {
    if (this.windows.get(subject) === window && !this.connections.has(subject)) this.windows.delete(subject);
  }

  /** Counts a subscribe message; false once the subject has sent its minute's worth. */
  allowSubscribe(subject: string, now = Date.now()): boolean {
    if (this.subscribesPerMinute === 0) return true;
    let window = this.windows.get(subject);
    if (!window || now - window.startedAt >= 60_000) {
      window = { startedAt: now, count: 0 };
      this.windows.set(subject, window);
    }
    window.count += 1;
    return window.count <= this.subscribesPerMinute;
  }

  /** Seconds until the subject's window starts again. */
  retryAfterSeconds(subject: string, now = Date.now()): number {
    const window = this.windows.get(subject);
    return window ? Math.max(1, Math.ceil((window.startedAt + 60_000 - now) / 1000)) : 1;
  }
}
