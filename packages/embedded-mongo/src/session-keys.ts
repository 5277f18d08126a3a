import { isPlainObject } from './bson-values';

/** A map key for a logical session id (`lsid: {id: UUID}`), or undefined if absent. */
export function sessionKeyOf(lsid: unknown): string | undefined {
  if (!isPlainObject(lsid) || lsid.id === undefined || lsid.id === null) return undefined;
  const id = lsid.id as { toString(encoding?: string): string };
  const buffer = (lsid.id as { buffer?: Uint8Array }).buffer;
  return buffer ? Buffer.from(buffer).toString('hex') : String(id);
}
