import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { GameConfigService } from '../game-config/game-config.service';
import { compileNameMatcher, type NameList, type NameMatch, type NameMatcher } from './name-matcher';

type Names = { readonly blocked: readonly string[]; readonly reserved: readonly string[] };

interface Compiled {
  /** The config object it was compiled from: the same object means nothing changed since. */
  names: Names;
  /** The lists as JSON, for a config reloaded unchanged (the config cache's safety expiry). */
  readonly key: string;
  readonly matcher: NameMatcher;
}

const NOTHING: NameMatcher = { match: () => [] };

/** The fields of a group a name policy applies to, as a request supplies them. */
export interface NamedFields {
  name?: string;
  tags?: readonly string[];
}

/**
 * Each game's name policy (EXTENSIONS X10), compiled once per config. Fresh as the game config
 * cache is: a config change clears that cache on every instance, the next read hands out a new
 * config object, and a new object with different lists is compiled again.
 */
@Injectable()
export class NamePolicies {
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly configs: GameConfigService) {}

  async matcherOf(gameId: string): Promise<NameMatcher> {
    const names = (await this.configs.forFriends(gameId)).config.moderation.names;
    if (!names.blocked.length && !names.reserved.length) {
      this.compiled.delete(gameId);
      return NOTHING;
    }
    const hit = this.compiled.get(gameId);
    if (hit?.names === names) return hit.matcher;
    const key = JSON.stringify(names);
    if (hit?.key === key) {
      hit.names = names;
      return hit.matcher;
    }
    const matcher = compileNameMatcher(names);
    this.compiled.set(gameId, { names, key, matcher });
    return matcher;
  }

  /** {@link refuseNames} with the game's policy. */
  async refuse(gameId: string, fields: NamedFields, lists: readonly NameList[]): Promise<void> {
    if (fields.name === undefined && fields.tags === undefined) return;
    refuseNames(await this.matcherOf(gameId), fields, lists);
  }
}

/**
 * 400 `name_not_allowed` when a supplied name or tag holds a word of `lists`, naming the first
 * such field (the name, then the tags in order) and the listed word.
 */
export function refuseNames(matcher: NameMatcher, fields: NamedFields, lists: readonly NameList[]): void {
  const named: [string, string][] = [];
  if (fields.name !== undefined) named.push(['name', fields.name]);
  fields.tags?.forEach((tag, i) => named.push([`tags[${i}]`, tag]));
  for (const [field, text] of named) {
    const found = matcher.match(text).find((m) => lists.includes(m.list));
    if (found) throw notAllowed(field, found);
  }
}

function notAllowed(field: string, m: NameMatch): ApiError {
  const why = m.list === 'blocked' ? 'a word this game does not allow' : 'a word this game reserves for its operators';
  return new ApiError('name_not_allowed', `${field} contains "${m.word}", ${why}`);
}
