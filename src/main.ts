import { failStartup, settingsOrExit, startServer } from './boot';

/** `npm run start:prod`: configured by the environment only (SPEC §8). */
async function main(): Promise<void> {
  const settings = settingsOrExit();
  await startServer(settings);
}

main().catch(failStartup);
