import { TextDecoder } from 'node:util';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import type { ZipEntry } from './zip-directory';
import { damagedFile, inflatePart } from './zip-part';

/** Deeper than any SpreadsheetML part (about 10 levels, extensions included); bounds the parser's stack. */
export const MAX_XML_DEPTH = 64;
/**
 * Longest stretch of a part without a `<`: one text or one tag with its attributes. Excel's longest
 * cell text (32,767 characters) written with entities fits several times over; the cap bounds what
 * the XML parser accumulates before it hands anything on.
 */
export const MAX_MARKUP_RUN = 1024 * 1024;

const LT = 0x3c;

/** The element and attribute names of a part, with any namespace prefix (`x:`, `main:`) removed. */
export interface XmlPartHandler {
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  /** Text and CDATA, entities resolved. */
  text(text: string): void;
  /** Set once the handler has what it needs: reading stops after the current chunk. */
  readonly done: boolean;
}

export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** An attribute by its local name, whatever its prefix (`r:id` in transitional and strict alike). */
export function prefixedAttribute(attributes: Record<string, string>, local: string): string | undefined {
  for (const name in attributes) if (localName(name) === local && name !== local) return attributes[name];
  return undefined;
}

class XmlSyntaxError extends Error {}

/** Tracks the longest run of bytes without a `<` across chunks, looking at no more bytes than it must. */
class MarkupRunGuard {
  private run = 0;

  constructor(private readonly part: string) {}

  push(chunk: Buffer): void {
    let from = 0;
    for (;;) {
      const mustSeeBy = from + (MAX_MARKUP_RUN - this.run);
      if (mustSeeBy >= chunk.length) {
        const last = chunk.lastIndexOf(LT);
        this.run = last >= from ? chunk.length - last - 1 : this.run + chunk.length - from;
        return;
      }
      const found = chunk.lastIndexOf(LT, mustSeeBy);
      if (found < from) {
        throw sheetError.unprocessable(
          `The workbook part ${this.part} holds a text or tag longer than ${MAX_MARKUP_RUN} bytes; no spreadsheet program writes one, so the file was not read`,
        );
      }
      from = found + 1;
      this.run = 0;
    }
  }
}

function decoderFor(first: Buffer): TextDecoder {
  // XML parts are UTF-8 unless a byte order mark says UTF-16. Without a mark (openpyxl reads such
  // parts, some generators write them), the first character tells: an XML part starts with `<` or
  // white space, so a zero byte beside it is UTF-16, and NUL is never a character of XML in UTF-8.
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  if (first.length >= 2 && first[0] !== 0 && first[1] === 0) return new TextDecoder('utf-16le', { fatal: true });
  if (first.length >= 2 && first[0] === 0 && first[1] !== 0) return new TextDecoder('utf-16be', { fatal: true });
  return new TextDecoder('utf-8', { fatal: true });
}

const ENCODING_NAMES: Record<string, string> = { 'utf-8': 'UTF-8', 'utf-16le': 'UTF-16', 'utf-16be': 'UTF-16' };

/**
 * Streams one part through a SAX parser: inflated chunk by chunk, decoded with a streaming decoder
 * (a character split across two chunks is joined, never replaced by U+FFFD; bytes that are not
 * UTF-8, or not UTF-16 in a part that starts as UTF-16, make the part damaged), nesting and markup
 * runs capped, every element counted against the budget. Stops early when the handler is done.
 */
export async function readXmlPart(bytes: Buffer, entry: ZipEntry, handler: XmlPartHandler, budget: ReadBudget): Promise<void> {
  if (entry.uncompressedSize === 0 && entry.compressedSize <= 2) return; // an empty part reads as nothing
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('error', (error) => {
    throw new XmlSyntaxError(error.message);
  });
  parser.on('opentag', (opened) => {
    const tag = opened as SaxesTagPlain; // without xmlns, attributes are plain strings
    depth += 1;
    if (depth > MAX_XML_DEPTH) {
      throw sheetError.unprocessable(
        `The workbook part ${entry.name} nests XML elements more than ${MAX_XML_DEPTH} levels deep; no spreadsheet program writes that, so the file was not read`,
      );
    }
    budget.countElement();
    handler.open(localName(tag.name), tag.attributes);
  });
  parser.on('closetag', (tag) => {
    depth -= 1;
    handler.close(localName(tag.name));
  });
  parser.on('text', (text) => handler.text(text));
  parser.on('cdata', (text) => handler.text(text));

  const guard = new MarkupRunGuard(entry.name);
  let decoder: TextDecoder | undefined;
  try {
    for await (const chunk of inflatePart(bytes, entry)) {
      budget.checkpoint();
      guard.push(chunk);
      decoder ??= decoderFor(chunk);
      parser.write(decoder.decode(chunk, { stream: true }));
      if (handler.done) return;
    }
    if (decoder) parser.write(decoder.decode());
    parser.close();
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw damagedFile(`${entry.name} is not well-formed XML (${error.message})`, entry.container);
    // By its code: the decoder's TypeError may come from another realm (jest's sandbox).
    if ((error as { code?: string } | null)?.code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw damagedFile(`${entry.name} holds bytes that are not valid ${ENCODING_NAMES[decoder?.encoding ?? 'utf-8'] ?? 'UTF-8'} text`, entry.container);
    }
    throw error;
  }
}
