/**
 * JSON answers written as UTF-8 into memory reused from one answer to the next, then copied out once.
 *
 * `Buffer.from(JSON.stringify(list))` for a large timeline pays three times for the size: V8 hands
 * back the JSON as a rope of small pieces, which the first read flattens into a new string of the
 * whole size, then the UTF-8 copy goes into a new buffer of that size; each new block that large is
 * fresh memory the operating system maps page by page. A list stringified a slice at a time (each
 * slice's text small enough to be flat) and written into a reused buffer avoids both (figures:
 * docs/performance.md, "Figures behind the code"); the one copy out, into a buffer the answer
 * owns, is a plain memory copy.
 */

/** Elements stringified at a time: their text stays under V8's 16 KB rope pieces for timeline entries. */
const SLICE = 32;

let scratch = Buffer.allocUnsafeSlow(256 * 1024);

export interface WrittenJson {
  /** The UTF-8 bytes, in a buffer of their own. */
  bytes: Buffer;
}

export interface OversizedJson {
  /** The length in UTF-8 bytes the JSON would have had (no byte of it kept past the limit). */
  byteLength: number;
}

/**
 * The UTF-8 JSON of `value` (exactly `JSON.stringify(value)`, then `suffix`), written through scratch
 * memory. A long list is written a slice of elements at a time, also where it sits in plain objects
 * a few levels down (a GraphQL result's `data.timelineEvents`). Beyond `maxBytes` nothing more is
 * written and only the length is counted, so an oversized answer never grows the scratch memory.
 */
export function writeJson(value: unknown, maxBytes: number, suffix = ''): WrittenJson | OversizedJson {
  const writer = new ScratchWriter(maxBytes);
  writeValue(writer, value, 0);
  if (suffix) writer.write(suffix);
  return writer.finish();
}

/** Plain objects this deep are written key by key (to reach a long list); deeper values are stringified whole. */
const MAX_OBJECT_DEPTH = 3;

function writeValue(writer: ScratchWriter, value: unknown, depth: number): void {
  if (Array.isArray(value) && value.length > SLICE) {
    writer.write('[');
    for (let start = 0; start < value.length; start += SLICE) {
      const text = JSON.stringify(value.slice(start, start + SLICE));
      if (start > 0) writer.write(',');
      // The slice's own brackets left out (a sliced string: no copy).
      writer.write(text.slice(1, -1));
    }
    writer.write(']');
    return;
  }
  if (depth < MAX_OBJECT_DEPTH && isPlainObject(value)) {
    writer.write('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const member = value[key];
      // What JSON.stringify leaves out of an object.
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      writer.write(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      writeValue(writer, member, depth + 1);
    }
    writer.write('}');
    return;
  }
  // JSON.stringify answers undefined for undefined (no JSON at all): written as null.
  writer.write(JSON.stringify(value) ?? 'null');
}

/** An object JSON.stringify writes as its own keys: plain prototype, no toJSON. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

class ScratchWriter {
  private length = 0;
  private oversized = false;

  constructor(private readonly maxBytes: number) {}

  write(text: string): void {
    // Past the limit (or about to be, by this text alone), only count.
    if (this.oversized || this.length + text.length > this.maxBytes) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (this.oversized || this.length + bytes > this.maxBytes) {
        this.oversized = true;
        this.length += bytes;
        return;
      }
    }
    // Every UTF-16 unit is at most 3 UTF-8 bytes.
    const room = this.length + text.length * 3;
    if (room > scratch.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(room, scratch.length * 2));
      scratch.copy(grown, 0, 0, this.length);
      scratch = grown;
    }
    this.length += scratch.write(text, this.length, 'utf8');
  }

  finish(): WrittenJson | OversizedJson {
    return this.oversized || this.length > this.maxBytes ? { byteLength: this.length } : { bytes: Buffer.from(scratch.subarray(0, this.length)) };
  }
}
