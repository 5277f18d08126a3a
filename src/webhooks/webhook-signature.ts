import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Random bytes in a secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret in the Standard Webhooks format (`whsec_` + base64), as receivers' libraries take it. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The three Standard Webhooks headers. `webhook-signature` holds one `v1,<HMAC-SHA256>` per secret,
 * space-separated: during a rotation's grace period the old secret's signature travels too, and
 * receivers accept the message if any signature matches.
 */
export function signatureHeaders(secrets: readonly string[], messageId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' '),
  };
}
