export default async function globalTeardown(): Promise<void> {
  const teardown = (globalThis as Record<string, unknown>).__ghTeardown as (() => Promise<void>) | undefined;
  await teardown?.();
}
