import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Settings } from '../config/settings';
import { consoleAssetsDir } from './console-assets';
import { consoleHeaders } from './console-headers';

export const CONSOLE_PATH = '/console';

/**
 * Serves the operator console (built from console/ into dist/console) at /console/. Only with an
 * admin token configured: without one no admin route answers, and /console stays a 404. The files
 * are public; everything they show comes from the admin routes, which check the token.
 */
export async function mountConsole(app: NestFastifyApplication, settings: Settings, root = consoleAssetsDir()): Promise<boolean> {
  if (!settings.adminToken || !root) return false;
  await app.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PATH}/`,
    index: 'index.html',
    decorateReply: false,
    cacheControl: false,
    dotfiles: 'ignore',
    setHeaders: (reply, path) => {
      for (const [name, value] of Object.entries(consoleHeaders(path))) reply.header(name, value);
    },
  });
  // The page names its assets relative to /console/: the bare path redirects there.
  app.getHttpAdapter().getInstance().get(CONSOLE_PATH, (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 301));
  return true;
}
