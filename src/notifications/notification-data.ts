import type { GroupRow } from '../groups/group-row';

/** The group a notification's `data` shows (EXTENSIONS X9): as it is when the notification is written. */
export const notifiedGroup = (g: Pick<GroupRow, 'id' | 'name' | 'kind'>): { id: string; name: string; kind: string } => ({ id: g.id, name: g.name, kind: g.kind });
