/**
 * PostgreSQL text and jsonb cannot hold the NUL character: a client string carrying one would fail
 * in the database as a 500. Returns the path of the first such string, or null.
 */
export function findNulCharacter(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNulCharacter(value[i], `${path}.${i}`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return at;
    const hit = findNulCharacter(v, at, depth + 1);
    if (hit) return hit;
  }
  return null;
}
