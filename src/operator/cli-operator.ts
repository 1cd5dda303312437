import { hostname, userInfo } from 'node:os';
import type { ActingOperator } from '../common/auth/operator-roles';

/**
 * Who the operator audit names for the operator command: `cli`, with the OS account and machine it
 * ran on. The command holds the database URL rather than a token, so those are what tell who used
 * it. An account without a passwd entry (a container run with an arbitrary uid) is known by $USER,
 * else by its uid.
 */
export function cliOperator(env: NodeJS.ProcessEnv = process.env, account: () => string = () => userInfo().username): ActingOperator {
  let osUser: string;
  try {
    osUser = account();
  } catch {
    osUser = env.USER || `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return { id: null, name: 'cli', role: 'owner', origin: { osUser, host: hostname() } };
}
