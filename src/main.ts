import { fail, settingsOrExit, startServer } from './boot';

/** `npm run start:prod`: configured by the environment only (SPEC §8). */
async function main(): Promise<void> {
  const settings = settingsOrExit();
  await startServer(settings);
}

main().catch((err: unknown) => fail(`start-up failed: ${(err as Error)?.message ?? String(err)}`));
