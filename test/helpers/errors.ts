/** The shared assertion on SPEC §7 error bodies. */
export type ErrorRes = { status: number; body: { code?: string; status?: number; message?: string } };

/** The response is the error `code` with `status`, echoed in the body, and a message. */
export const expectError = (r: ErrorRes, status: number, code: string) => {
  expect({ status: r.status, code: r.body.code }).toEqual({ status, code });
  expect(r.body.status).toBe(status);
  expect(typeof r.body.message).toBe('string');
};
