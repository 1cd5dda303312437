import { fill, h, type Child } from './dom';
import { errorBox, loading } from './ui';

export interface Confirmation {
  title: string;
  /** What will happen, in words: who and what it touches, and whether it can be undone. */
  text: Child;
  /** The confirming button's words ("Kick ann-42"): the button says what it does, not "OK". */
  confirm: string;
  /** The confirming button's look: `danger` (the default) for what removes or refuses, `primary` else. */
  tone?: 'danger' | 'primary';
  /** Optional controls (a reason, an end date) asked for in the dialog. */
  fields?: HTMLElement[];
  /** Makes the change with the dialog's form; a failure stays in the dialog, to correct or cancel. */
  run: (form: HTMLFormElement) => Promise<void>;
}

let opened = 0;

/**
 * A modal confirmation before a change: nothing is sent until its button is pressed. Resolves true
 * once `run` has succeeded (the dialog then closes), false when cancelled (Cancel, or Escape).
 */
export function confirmAction({ title, text, confirm, tone = 'danger', fields = [], run }: Confirmation): Promise<boolean> {
  const id = `confirm-h-${++opened}`;
  const problem = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: tone }, confirm);
  return new Promise((resolve) => {
    let done = false;
    const form: HTMLFormElement = h(
      'form',
      {
        onsubmit: async (event: Event) => {
          event.preventDefault();
          button.disabled = true;
          fill(problem, loading('Working'));
          try {
            await run(form);
            done = true;
            dialog.close();
          } catch (err) {
            fill(problem, errorBox(err));
            button.disabled = false;
          }
        },
      },
      fields,
      problem,
      h('div', { class: 'toolbar' }, h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'), button),
    );
    const dialog: HTMLDialogElement = h('dialog', { class: 'confirm', 'aria-labelledby': id }, h('h2', { id }, title), h('p', {}, text), form);
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(done);
    });
    document.body.append(dialog);
    dialog.showModal();
    (form.querySelector<HTMLElement>('input, select, textarea') ?? button).focus();
  });
}
