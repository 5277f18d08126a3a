import { compareValues } from './bson-values';

/** One index entry: an indexed value and the key of the document holding it. */
export interface KeyEntry {
  value: unknown;
  documentKey: string;
}

export interface RangeBound {
  value: unknown;
  inclusive: boolean;
}

const MAX_CHUNK = 512;

function compareEntries(a: KeyEntry, b: KeyEntry): number {
  const byValue = compareValues(a.value, b.value);
  if (byValue !== 0) return byValue;
  return a.documentKey < b.documentKey ? -1 : a.documentKey > b.documentKey ? 1 : 0;
}

/**
 * Entries kept in index order in a list of small sorted chunks, so an insert or removal shifts at
 * most one chunk (a flat sorted array would make bulk inserts quadratic) while range scans stay a
 * binary search plus a walk.
 */
export class SortedKeyList {
  private chunks: KeyEntry[][] = [];

  get size(): number {
    let total = 0;
    for (const chunk of this.chunks) total += chunk.length;
    return total;
  }

  insert(entry: KeyEntry): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    const chunkIndex = this.chunkFor(entry);
    const chunk = this.chunks[chunkIndex];
    chunk.splice(this.positionIn(chunk, entry), 0, entry);
    if (chunk.length > MAX_CHUNK) {
      this.chunks.splice(chunkIndex + 1, 0, chunk.splice(MAX_CHUNK / 2));
    }
  }

  remove(entry: KeyEntry): boolean {
    if (this.chunks.length === 0) return false;
    const chunkIndex = this.chunkFor(entry);
    const chunk = this.chunks[chunkIndex];
    const position = this.positionIn(chunk, entry);
    if (position >= chunk.length || compareEntries(chunk[position], entry) !== 0) return false;
    chunk.splice(position, 1);
    if (chunk.length === 0) this.chunks.splice(chunkIndex, 1);
    return true;
  }

  /**
   * Document keys whose value lies between the bounds, in index order. A missing bound stops at
   * the edge of the other bound's type, as MongoDB's type bracketing does (`$gt: 5` never reaches
   * strings).
   */
  *range(lower: RangeBound | undefined, upper: RangeBound | undefined, withinType: (value: unknown) => boolean): Generator<string> {
    let chunkIndex = 0;
    let position = 0;
    if (lower) {
      chunkIndex = this.firstChunkNotBelow(lower);
      if (chunkIndex < this.chunks.length) position = this.firstPositionNotBelow(this.chunks[chunkIndex], lower);
    }
    for (; chunkIndex < this.chunks.length; chunkIndex += 1, position = 0) {
      const chunk = this.chunks[chunkIndex];
      for (; position < chunk.length; position += 1) {
        const value = chunk[position].value;
        if (upper) {
          const byUpper = compareValues(value, upper.value);
          if (byUpper > 0 || (byUpper === 0 && !upper.inclusive)) return;
        }
        if (!withinType(value)) {
          if (lower) return;
          continue;
        }
        yield chunk[position].documentKey;
      }
    }
  }

  private chunkFor(entry: KeyEntry): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (compareEntries(this.chunks[middle][0], entry) <= 0) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private positionIn(chunk: KeyEntry[], entry: KeyEntry): number {
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareEntries(chunk[middle], entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private isBelow(value: unknown, bound: RangeBound): boolean {
    const byValue = compareValues(value, bound.value);
    return byValue < 0 || (byValue === 0 && !bound.inclusive);
  }

  private firstChunkNotBelow(bound: RangeBound): number {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const chunk = this.chunks[middle];
      if (this.isBelow(chunk[chunk.length - 1].value, bound)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private firstPositionNotBelow(chunk: KeyEntry[], bound: RangeBound): number {
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.isBelow(chunk[middle].value, bound)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
