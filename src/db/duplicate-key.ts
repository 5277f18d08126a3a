/** MongoDB's duplicate-key error (E11000), as the driver raises it for a write or an upsert. */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}

/**
 * Runs an upsert, and once more if it lost a race: two concurrent upserts of the same new key may
 * both try to insert, and the loser's E11000 means the document now exists, so a second try updates it.
 */
export async function upsertWithRetry<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return upsert();
  }
}
