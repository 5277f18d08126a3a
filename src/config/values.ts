import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { IANAZone } from 'luxon';
import { z } from 'zod';

/**
 * The kinds of value a variable can hold: zod schemas from the trimmed text of the environment to
 * the typed value, each refusing with a message that says what is expected and what it got (the
 * loader puts the variable's name in front). Each schema is registered with what it accepts, in
 * words, for the configuration table's "Accepted" column.
 */

/** What the value measures, so the docs can show `5242880` as 5 MiB. */
export type Unit = 'bytes' | 'ms' | 'seconds' | 'days';

export interface ValueMeta {
  /** What the variable accepts, in words (Markdown), for the docs. */
  accepts: string;
  unit?: Unit;
}

/** A variable's value schema: takes the trimmed text of the environment. */
export type ValueSchema<T = unknown> = z.ZodType<T>;

export const VALUE_META = z.registry<ValueMeta>();

function described<S extends z.ZodType>(schema: S, meta: ValueMeta): S {
  VALUE_META.add(schema, meta);
  return schema;
}

/** Thrown by a reader below to refuse a value; the message says what is expected. */
class Refused extends Error {}
const refuse = (message: string): never => {
  throw new Refused(message);
};

/** A value whose reading is more than zod's built-ins: `read` returns it or calls `refuse`. */
function readWith<T>(accepts: string, read: (raw: string) => T): ValueSchema<T> {
  const schema = z.string().transform((raw, ctx) => {
    try {
      return read(raw);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message, input: raw });
      return z.NEVER;
    }
  });
  return described(schema, { accepts });
}

const UNIT_WORDS: Record<Unit, string> = { bytes: 'bytes', ms: 'milliseconds', seconds: 'seconds', days: 'days' };

/** A whole number within bounds (`min` and `max` included). */
export function wholeNumber(min: number, max: number, unit?: Unit): ValueSchema<number> {
  const schema = z
    .string()
    .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, {
      error: (issue) => `must be a whole number from ${min} to ${max}, got "${String(issue.input)}"`,
    })
    .transform(Number);
  return described(schema, { accepts: `${withGloss(min, unit)} to ${withGloss(max, unit)}${unit ? ` ${UNIT_WORDS[unit]}` : ''}`, unit });
}

/** A number of days, given to the service in milliseconds. */
export function daysInMs(min: number, max: number): ValueSchema<number> {
  return described(wholeNumber(min, max).transform((days) => days * DAY_MS), { accepts: `${min} to ${max} days`, unit: 'days' });
}

export function flag(): ValueSchema<boolean> {
  const schema = z.stringbool({
    truthy: ['true', '1', 'yes'],
    falsy: ['false', '0', 'no'],
    case: 'insensitive',
    error: (issue) => `must be true or false, got "${String(issue.input)}"`,
  });
  return described(schema, { accepts: '`true` or `false` (also `1`/`0`, `yes`/`no`)' });
}

export function oneOf<const T extends string>(values: readonly [T, ...T[]]): ValueSchema<T> {
  const schema = z.enum(values, { error: (issue) => `must be one of ${values.join(', ')}, got "${String(issue.input)}"` });
  return described(schema, { accepts: values.map((value) => `\`${value}\``).join(', ') });
}

/** Free text, optionally with a length limit and a pattern (`patternText` says what the pattern asks for). */
export function text(options: { maxLength?: number; minBytes?: number; pattern?: RegExp; patternText?: string; accepts?: string; why?: string } = {}): ValueSchema<string> {
  const { maxLength, minBytes, pattern, patternText, why } = options;
  const accepts = options.accepts ?? patternText ?? (maxLength ? `text, at most ${maxLength} characters` : minBytes ? `text, at least ${minBytes} bytes` : 'text');
  return readWith(accepts, (raw) => {
    if (pattern && !pattern.test(raw)) refuse(`must be ${patternText}, got "${raw}"`);
    if (maxLength !== undefined && raw.length > maxLength) refuse(`must be at most ${maxLength} characters${why ? ` (${why})` : ''}, got ${raw.length}`);
    if (minBytes !== undefined && Buffer.byteLength(raw) < minBytes) refuse(`must be at least ${minBytes} bytes${why ? ` ${why}` : ''}`);
    return raw;
  });
}

/** A PEM block of the given kind; literal `\n` sequences (as environment variables often carry them) become newlines. */
export function pemBlock(label: 'PUBLIC KEY' | 'PRIVATE KEY', format: string): ValueSchema<string> {
  return readWith(`a PEM \`-----BEGIN ${label}-----\` block (${format})`, (raw) => {
    const value = raw.replace(/\\n/g, '\n');
    if (!value.includes(`-----BEGIN ${label}-----`)) refuse(`must be a PEM "-----BEGIN ${label}-----" block (${format})`);
    return value;
  });
}

/** An absolute http(s) URL, returned as written; `protocols` says which schemes are meant (http is accepted too). */
export function httpUrl(protocols: string): ValueSchema<string> {
  return readWith(`an absolute ${protocols} URL`, (raw) => {
    const url = parseUrl(raw) ?? refuse(`must be an absolute http(s) URL, got "${raw}"`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(`must use ${protocols}`);
    return raw;
  });
}

/** `https://broker.example.com` or with a path prefix; no query, fragment or credentials; no trailing slash. */
export function baseUrl(): ValueSchema<string> {
  return readWith('an absolute http(s) URL without query, fragment or credentials', (raw) => {
    const url = parseUrl(raw) ?? refuse(`must be an absolute http(s) URL such as https://broker.example.com, got "${raw}"`);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
      refuse(`must be an http(s) URL without query, fragment or credentials, got "${raw}"`);
    }
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  });
}

export function mongodbUri(): ValueSchema<string> {
  return readWith('a `mongodb://` or `mongodb+srv://` URI', (raw) => (/^mongodb(\+srv)?:\/\//.test(raw) ? raw : refuse('must start with mongodb:// or mongodb+srv://')));
}

export function timeZone(): ValueSchema<string> {
  return readWith('an IANA time zone', (raw) => (IANAZone.isValidZone(raw) ? raw : refuse(`must be an IANA time zone such as Europe/Rome, got "${raw}"`)));
}

const HOST_NAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*(:\d{1,5})?$/;

/** A Host header worth echoing into a link: a DNS name, IPv4 or bracketed IPv6 address, and an optional port. */
export function isHostHeader(value: string): boolean {
  return HOST_NAME.test(value) || /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]{2,45}\])(:\d{1,5})?$/.test(value);
}

export function hostName(): ValueSchema<string> {
  return readWith('a host name, optionally with `:port`', (raw) =>
    HOST_NAME.test(raw) ? raw : refuse(`must be a host name without scheme or path, such as broker.example.com, got "${raw}"`),
  );
}

/** An ISO 3166-1 alpha-2 code with a telephone numbering plan, upper-cased. */
export function phoneRegion(): ValueSchema<CountryCode> {
  return readWith('an ISO 3166-1 alpha-2 code with a numbering plan', (raw) => {
    const code = raw.toUpperCase();
    if (/^[A-Z]{2}$/.test(code) && isSupportedCountry(code)) return code;
    return refuse(`must be an ISO 3166-1 alpha-2 country code with a telephone numbering plan (e.g. IT, GB), got "${raw}"`);
  });
}

/** `https://a.example, http://localhost:5173` → exact origins; `*` allows any (tokens, not cookies, carry identity). */
export function origins(): ValueSchema<string[]> {
  return readWith('comma-separated origins, or `*`', (raw) =>
    items(raw).map((origin) => {
      if (origin === '*') return origin;
      const url = parseUrl(origin) ?? refuse(`must be a comma-separated list of origins such as https://ops.example.com, got "${origin}"`);
      if (url.origin !== origin) refuse(`"${origin}" is not a bare origin: write ${url.origin} (scheme, host and port only)`);
      return origin;
    }),
  );
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: false/none/0 → trust no one; a number → that many hops; else addresses, CIDRs, names. */
export function trustedProxies(): ValueSchema<false | number | string[]> {
  return readWith('`false`, a hop count, or comma-separated addresses, CIDR ranges and `loopback`, `linklocal`, `uniquelocal`', (raw) => {
    if (['false', 'none', '0'].includes(raw.toLowerCase())) return false;
    if (/^\d{1,2}$/.test(raw)) return Number(raw);
    return items(raw).map((item) => {
      const [address, prefix, ...rest] = item.split('/');
      const family = isIP(address);
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
      if (PROXY_NAMES.includes(item) || (family !== 0 && prefixOk && rest.length === 0)) return item;
      return refuse(`must be false, a hop count, or a comma-separated list of addresses, CIDR ranges and ${PROXY_NAMES.join(', ')}; "${item}" is none of these`);
    });
  });
}

/** `127.0.0.1, 10.0.0.0/8, fd00::/8` → normalised CIDR ranges (an address alone is a range of one). */
export function networks(): ValueSchema<string[]> {
  return readWith('comma-separated IP addresses and CIDR ranges', (raw) =>
    items(raw).map((item) => {
      try {
        const [address, bits] = ipaddr.isValidCIDR(item) ? ipaddr.parseCIDR(item) : [ipaddr.parse(item), undefined];
        return `${address.toString()}/${bits ?? (address.kind() === 'ipv4' ? 32 : 128)}`;
      } catch {
        return refuse(`must be a comma-separated list of IP addresses and CIDR ranges such as 127.0.0.1 or 10.0.0.0/8; "${item}" is neither`);
      }
    }),
  );
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** `5000,300000,…`: up to `maxItems` delays in milliseconds of at most `maxDelayMs` each. */
export function delays(maxItems: number, maxDelayMs: number): ValueSchema<number[]> {
  const most = `at most ${maxItems} delays in milliseconds, each at most ${gloss(maxDelayMs, 'ms')}`;
  return readWith(`comma-separated list of ${most}`, (raw) => {
    const entries = items(raw);
    if (entries.length > maxItems || entries.some((delay) => !/^\d{1,9}$/.test(delay) || Number(delay) > maxDelayMs)) {
      refuse(`must be a comma-separated list of ${most}, got "${raw}"`);
    }
    return entries.map(Number);
  });
}

/** A comma-separated list; the empty text (a default: the environment's empty values count as unset) is the empty list. */
function items(raw: string): string[] {
  if (raw === '') return [];
  return raw.split(',').map((entry) => entry.trim());
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

const SIZES: [number, string][] = [[1024 ** 4, 'TiB'], [1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];
const DURATIONS_MS: [number, string][] = [[DAY_MS, 'days'], [3_600_000, 'h'], [60_000, 'min']];

/** `5242880` → `5 MiB`, `432000000` → `5 days`, `31536000` seconds → `365 days`; undefined below a KiB or a minute. */
export function gloss(value: number, unit: Unit | undefined): string | undefined {
  const scales = unit === 'bytes' ? SIZES : unit === 'ms' ? DURATIONS_MS : unit === 'seconds' ? DURATIONS_MS.map(([ms, name]): [number, string] => [ms / 1000, name]) : [];
  const [scale, name] = scales.find(([size]) => value >= size && value % size === 0) ?? [];
  if (scale === undefined) return unit === 'ms' && value >= 1000 && value % 1000 === 0 ? `${value / 1000} s` : undefined;
  return `${value / scale} ${name === 'days' && value === scale ? 'day' : name}`;
}

function withGloss(value: number, unit: Unit | undefined): string {
  const words = gloss(value, unit);
  return words ? `${value} (${words})` : String(value);
}
