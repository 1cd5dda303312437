import { setOperator } from '../access';
import { api } from '../api';
import { fill, h, field } from '../dom';
import type { PageContext } from '../page';
import { session } from '../session';
import type { Whoami } from '../types';
import { errorBox, labelled, pageHeader } from '../ui';

/**
 * Asks for a token, the root admin token or an operator's, and keeps it only once the service
 * accepts it; whoami's answer (name and role) decides what the console shows.
 */
export function signInPage({ main, rerender }: PageContext): void {
  const problem = h('div', { 'aria-live': 'polite' });
  const input = h('input', { name: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const form = h(
    'form',
    {
      class: 'sign-in card',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const token = field(form, 'token');
        fill(problem);
        try {
          setOperator(await api<Whoami>('/v1/admin/whoami', { token }));
          session.signIn(token);
          await rerender();
        } catch (err) {
          fill(problem, errorBox(err));
          input.focus();
        }
      },
    },
    labelled('Operator or admin token', input, 'Your operator token (jop_…), or SVC_ADMIN_TOKEN of this service (npm start prints it). Kept in this tab only.'),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    problem,
  );
  fill(main, pageHeader('Sign in'), form);
  input.focus();
}
