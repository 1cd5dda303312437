/** Arranges data through the game API, as a game backend would. */
export function gameApi(base: string, key: string) {
  const call = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    call,
    group: (name: string, creatorUserId = 'founder') => call<{ id: string }>('POST', '/v1/groups', { kind: 'guild', name, visibility: 'public', creatorUserId }),
    join: (groupId: string, userId: string) => call('POST', `/v1/groups/${groupId}/join`, { userId }),
    role: (groupId: string, name: string, priority: number) => call<{ id: string }>('POST', `/v1/groups/${groupId}/roles`, { name, priority }),
    grant: (roleId: string, permission: string) => call('POST', `/v1/roles/${roleId}/permissions`, { permission }),
    assign: (groupId: string, userId: string, roleId: string) => call('POST', `/v1/groups/${groupId}/members/${userId}/roles/${roleId}`),
    report: (reporterUserId: string, subject: { type: 'user' | 'group'; id: string }, category: string, message?: string) =>
      call<{ id: string }>('POST', '/v1/reports', { reporterUserId, subject, category, ...(message === undefined ? {} : { message }) }),
  };
}

/** Runs `task` over `items`, `width` at a time. */
export async function inBatches<T>(items: T[], width: number, task: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(task));
}
