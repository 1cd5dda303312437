/**
 * The admin token lives in sessionStorage: it is gone when the tab closes, never written to a
 * cookie (so the browser never sends it on its own) and never put in a URL.
 */
const KEY = 'guildhall.console.adminToken';

export const session = {
  token: (): string | null => sessionStorage.getItem(KEY),
  signIn: (token: string): void => sessionStorage.setItem(KEY, token),
  signOut: (): void => sessionStorage.removeItem(KEY),
};
