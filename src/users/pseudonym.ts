import { randomBytes } from 'node:crypto';

/** A fresh pseudonym (EXTENSIONS X7): one per erasure, the same wherever it replaces the user. */
export const newPseudonym = (): string => `erased_${randomBytes(16).toString('hex')}`;

export const isPseudonym = (value: string): boolean => /^erased_[0-9a-f]{32}$/.test(value);
