import { field, h } from '../dom';
import { labelled } from '../ui';

/** What a ban dialog asks: why, and until when (empty: without end). */
export function banFields(): HTMLElement[] {
  return [
    labelled('Reason', h('input', { name: 'reason', maxlength: 500, autocomplete: 'off' }), 'optional; the audit log and the event carry it'),
    labelled('Ends', h('input', { name: 'expiresAt', type: 'datetime-local' }), 'in your time zone; empty: until lifted'),
  ];
}

/** The body of a ban (as POST /v1/bans and POST /v1/groups/:id/bans take it) from the dialog's form. */
export function banBody(form: HTMLFormElement, userId: string): { userId: string; reason?: string; expiresAt?: string } {
  const reason = field(form, 'reason');
  const ends = field(form, 'expiresAt');
  return { userId, ...(reason ? { reason } : {}), ...(ends ? { expiresAt: new Date(ends).toISOString() } : {}) };
}

/** An optional reason, as kick and decline take it. */
export const reasonField = (hint = 'optional; the audit log and the event carry it'): HTMLElement =>
  labelled('Reason', h('input', { name: 'reason', maxlength: 500, autocomplete: 'off' }), hint);

export const reasonBody = (form: HTMLFormElement): { reason?: string } => {
  const reason = field(form, 'reason');
  return reason ? { reason } : {};
};
