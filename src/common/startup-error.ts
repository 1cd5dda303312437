/**
 * A start-up failure the user can fix: its message names the cause and the fix in one line,
 * and the launcher prints it without a stack.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
