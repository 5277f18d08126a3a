import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long a signed download link works. */
export const DOWNLOAD_LINK_SECONDS = 300;

/** The query parameters a signed link adds to GET …/passenger?format=… (besides format). */
export const LINK_PARAMETERS = ['expires', 'sub', 'signature'] as const;

export interface DownloadGrant {
  flightId: number;
  format: string;
  subject: string;
  /** Unix seconds. */
  expires: number;
}

/**
 * The key links are signed with: EXPORT_LINK_SECRET, else one derived from JWT_SECRET (HKDF, so
 * a link's signature never helps forge a token); none when tokens are verified with a public key
 * and no EXPORT_LINK_SECRET is set.
 */
export function downloadLinkKey(settings: { exportLinkSecret: string | null; jwtSecret?: string }): Buffer | null {
  if (settings.exportLinkSecret) return Buffer.from(settings.exportLinkSecret, 'utf8');
  if (settings.jwtSecret) return Buffer.from(hkdfSync('sha256', settings.jwtSecret, 'broker-flight-gateway', 'passenger-export-link', 32));
  return null;
}

const signature = (grant: DownloadGrant, key: Buffer) =>
  createHmac('sha256', key).update([grant.flightId, grant.format, grant.subject, grant.expires].join('\n')).digest('base64url');

/** The query string of a signed link (without the leading `?`). */
export function signedQuery(grant: DownloadGrant, key: Buffer): string {
  return new URLSearchParams({ format: grant.format, expires: String(grant.expires), sub: grant.subject, signature: signature(grant, key) }).toString();
}

/** Whether a link's parameters carry a valid, unexpired signature for this flight; the reason when not. */
export function verifyDownload(
  flightId: number,
  query: { format?: string; expires?: string; sub?: string; signature?: string },
  key: Buffer,
  nowSeconds: number,
): { ok: true; grant: DownloadGrant } | { ok: false; reason: string } {
  const { format, expires, sub, signature: given } = query;
  // expires as the link wrote it (no leading zero): a link changed in any part is refused.
  if (!format || !expires || !sub || !given || !/^[1-9]\d{0,11}$/.test(expires)) return { ok: false, reason: 'the link lacks format, expires, sub or signature' };
  const grant: DownloadGrant = { flightId, format, subject: sub, expires: Number(expires) };
  const expected = Buffer.from(signature(grant, key));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { ok: false, reason: 'the link’s signature does not match' };
  if (grant.expires < nowSeconds) return { ok: false, reason: 'the link has expired; ask for a new one' };
  return { ok: true, grant };
}

/** A URL with the signature replaced, for logs. */
export const redactSignature = (url: string) => url.replace(/([?&]signature=)[^&#]*/g, '$1[redacted]');
