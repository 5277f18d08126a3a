import type { ReadBudget } from './read-budget';
import { TextCollector } from './spreadsheet-text';
import { readXmlPart, type XmlPartHandler } from './xml-part-reader';
import type { ZipEntry } from './zip-directory';

/**
 * The shared string table: one text per `<si>`, all its runs joined (`<t>` directly or inside
 * `<r>`), the phonetic guides (`<rPh>`, the reading of Japanese and Chinese names) left out.
 */
export async function readSharedStrings(bytes: Buffer, entry: ZipEntry, budget: ReadBudget): Promise<string[]> {
  const strings: string[] = [];
  const text = new TextCollector(() => `Shared text ${strings.length + 1} of the workbook (${entry.name})`);
  let inItem = false;
  let inText = false;
  let phoneticDepth = 0;
  const handler: XmlPartHandler = {
    done: false,
    open(name) {
      if (name === 'si') {
        inItem = true;
        text.reset();
      } else if (name === 'rPh') phoneticDepth += 1;
      else if (name === 't' && inItem && phoneticDepth === 0) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phoneticDepth -= 1;
      else if (name === 'si' && inItem) {
        inItem = false;
        strings.push(text.text);
      }
    },
    text(piece) {
      if (inText) text.add(piece);
    },
  };
  await readXmlPart(bytes, entry, handler, budget);
  return strings;
}
