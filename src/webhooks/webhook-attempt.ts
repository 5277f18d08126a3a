import { truncateText } from '../errors';
import type { WebhookDeliveryDocument } from './webhook-delivery.model';
import type { WebhookEndpointDocument } from './webhook-endpoint.model';
import { postWebhook, type WebhookAgents } from './webhook-http';
import { signatureHeaders } from './webhook-signature';
import { checkTarget, TargetRefusedError, type TargetPolicy } from './webhook-target';

/** Longest error text the log keeps for an attempt. */
const MAX_ERROR_CHARS = 300;

export interface AttemptOutcome {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The worker was stopping: the attempt was cut short and does not count. */
  interrupted: boolean;
}

export interface AttemptContext {
  policy: TargetPolicy;
  timeoutMs: number;
  agents: WebhookAgents;
  /** Aborted when the worker stops. */
  stopSignal: AbortSignal;
  userAgent: string;
}

/** The secrets that sign now: the current one, and the previous one during a rotation's grace period. */
function signingSecrets(endpoint: WebhookEndpointDocument, now: Date): string[] {
  const graceActive = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now.getTime();
  return graceActive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

/**
 * One attempt: the endpoint's URL checked against the target policy again (DNS may now answer
 * something else), signed with a fresh timestamp, POSTed to the checked address within the
 * time-out. 2xx is delivered; a redirect, another status, a refused target, a network error or the
 * time-out is a failure described for the log.
 */
export async function attemptDelivery(delivery: WebhookDeliveryDocument, endpoint: WebhookEndpointDocument, context: AttemptContext): Promise<AttemptOutcome> {
  const started = Date.now();
  // One signal for the time-out and the worker stopping, released when the attempt ends (no
  // listener left behind on the worker's long-lived signal).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, context.timeoutMs);
  const stop = () => controller.abort();
  context.stopSignal.addEventListener('abort', stop, { once: true });
  if (context.stopSignal.aborted) controller.abort();
  const { signal } = controller;
  const outcome = (delivered: boolean, statusCode: number | null, error: string | null): AttemptOutcome => ({
    delivered,
    statusCode,
    error: error === null ? null : truncateText(error, MAX_ERROR_CHARS),
    durationMs: Date.now() - started,
    interrupted: context.stopSignal.aborted,
  });
  try {
    const url = new URL(endpoint.url);
    const target = await checkTarget(url, context.policy, signal);
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': context.userAgent,
      ...signatureHeaders(signingSecrets(endpoint, now), delivery.eventId, now, delivery.payload),
    };
    const answer = await postWebhook({ url, target, headers, body: delivery.payload, signal }, context.agents);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return outcome(true, answer.statusCode, null);
    if (answer.statusCode >= 300 && answer.statusCode < 400) {
      return outcome(false, answer.statusCode, `redirect (${answer.statusCode}${answer.location ? ` to ${answer.location}` : ''}) not followed: give the endpoint its final URL`);
    }
    const body = answer.body.trim().replace(/\s+/g, ' ');
    return outcome(false, answer.statusCode, `HTTP ${answer.statusCode}${body ? `: ${body}` : ''}`);
  } catch (error) {
    if (timedOut) return outcome(false, null, `no answer within ${context.timeoutMs} ms`);
    if (error instanceof TargetRefusedError) return outcome(false, null, `refused target: ${error.message}`);
    const { code, message } = error as NodeJS.ErrnoException;
    return outcome(false, null, code && !message.includes(code) ? `${code}: ${message}` : message);
  } finally {
    clearTimeout(timer);
    context.stopSignal.removeEventListener('abort', stop);
  }
}
