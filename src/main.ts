import './heap-tuning'; // first: before any of the app's code has run
import { failStartup, jsonLines, processLinesAsJson } from './boot-line';
import { parseSettings } from './config/settings';

/** `npm run start:prod`: configured by the environment only (SPEC §8). */
async function main(): Promise<void> {
  if (jsonLines()) processLinesAsJson();
  const settings = parseSettings(process.env);
  // The app's code takes seconds to load on a busy machine: a bad setting is refused before it.
  const { startServer } = require('./boot') as typeof import('./boot');
  await startServer(settings);
}

main().catch(failStartup);
