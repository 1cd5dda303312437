/**
 * Types read from the generated schema by path and status, never by operation or component name:
 * those names may change when the API document is regenerated, the paths and statuses do not.
 */
import type { paths } from './schema.js';

export type Path = keyof paths;

/** The operation `method` of `P`, or never when the path has none. */
export type Operation<P extends Path, M extends string> = paths[P] extends { [K in M]: infer O } ? O : never;

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of a 200 answer. */
export type OkBody<O> = O extends { responses: { 200: infer R } } ? JsonContent<R> : never;

/** The names of an operation's query parameters (none when it takes no query). */
export type QueryKeys<O> = O extends { parameters: { query?: infer Q } } ? ([NonNullable<Q>] extends [never] ? never : keyof NonNullable<Q>) : never;

type ErrorStatus = `${4 | 5}${string}` | 'default';
type ErrorBodies<O> = O extends { responses: infer R }
  ? { [S in keyof R]: `${S & (string | number)}` extends ErrorStatus ? JsonContent<R[S]> : never }[keyof R]
  : never;

type AnyOperation = { [P in Path]: { [M in keyof paths[P]]: M extends 'parameters' ? never : NonNullable<paths[P][M]> }[keyof paths[P]] }[Path];

/**
 * Every `code` an error answer of any route may carry (the envelope's enum in the API document).
 * A server newer than this client may send a code outside it: keep a default branch.
 */
export type ErrorCode = ErrorBodies<AnyOperation> extends infer E ? (E extends { code: infer C } ? C : never) : never;
