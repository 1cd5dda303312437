/**
 * Finds the words of a game's name policy inside a group name or tag, the way a player would try to
 * slip them past a plain substring check: any case or accent, look-alike characters, separators or
 * repeated letters between a word's letters. A word only counts standing on its own, so a clean
 * longer word that happens to hold a listed one (badminton, Scunthorpe) passes.
 *
 * The policy is compiled once into a trie of normalized words; a check walks it from each place a
 * word may start, so its cost follows the length of the text, not the number of words.
 */

export const NAME_LISTS = ['blocked', 'reserved'] as const;
export type NameList = (typeof NAME_LISTS)[number];

export interface NamePolicy {
  readonly blocked: readonly string[];
  readonly reserved: readonly string[];
}

/** A listed word found in a text; `start` inclusive and `end` exclusive, in UTF-16 units of the text as given. */
export interface NameMatch {
  word: string;
  list: NameList;
  start: number;
  end: number;
}

export interface NameMatcher {
  match(text: string): NameMatch[];
}

interface Entry {
  readonly word: string;
  readonly list: NameList;
}

interface TrieNode {
  readonly next: Map<string, TrieNode>;
  readonly entries: Entry[];
}

/** One letter or digit of the normalized text, with the part of the original text it came from. */
interface Letter {
  readonly symbol: string;
  readonly from: number;
  to: number;
  readonly token: number;
}

/**
 * `1` stands for both i and l, so it is kept as its own symbol and matched against either; the other
 * look-alikes have one reading and are replaced outright.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '0': 'o', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's',
};
const EITHER = '1';

/** The trie edges a text symbol may follow (a listed `1` also reads as i or l). */
function readings(symbol: string): readonly string[] {
  if (symbol === EITHER) return READ_ONE;
  if (symbol === 'i') return READ_I;
  if (symbol === 'l') return READ_L;
  return [symbol];
}
const READ_ONE = ['i', 'l', EITHER];
const READ_I = ['i', EITHER];
const READ_L = ['l', EITHER];

const WORD_CHAR = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/gu;

type Piece = { symbol: string } | 'separator';

/**
 * The normalized pieces of one code point: compatibility decomposition (accents come apart, and the
 * full-width and ligature forms players use to dodge filters fold to plain letters), lower case,
 * accents dropped, look-alikes read as letters. A code point that leaves nothing (a lone combining
 * accent) gives no piece and neither joins nor splits words.
 */
function piecesOf(char: string): Piece[] {
  const code = char.charCodeAt(0);
  if (code < 128) return ASCII[code];
  const plain = char.normalize('NFKD').toLowerCase().normalize('NFKD').replace(MARK, '');
  return [...plain].map(pieceOfPlain);
}

function pieceOfPlain(c: string): Piece {
  const alike = LOOK_ALIKES[c];
  if (alike) return { symbol: alike };
  return WORD_CHAR.test(c) ? { symbol: c } : 'separator';
}

const ASCII: Piece[][] = Array.from({ length: 128 }, (_, code) => [pieceOfPlain(String.fromCharCode(code).toLowerCase())]);

/** The letters of a text, each tagged with its word (token): a run of letters with no separator between. */
function lettersOf(text: string): Letter[] {
  const letters: Letter[] = [];
  let token = 0;
  let open = false;
  let at = 0;
  for (const char of text) {
    const to = at + char.length;
    const pieces = piecesOf(char);
    if (pieces.length === 0 && letters.length > 0 && letters[letters.length - 1].to === at) {
      // A lone accent belongs to the letter before it: an offset range never splits the two.
      letters[letters.length - 1].to = to;
    }
    for (const piece of pieces) {
      if (piece === 'separator') {
        if (open) token++;
        open = false;
      } else {
        letters.push({ symbol: piece.symbol, from: at, to, token });
        open = true;
      }
    }
    at = to;
  }
  return letters;
}

/** The symbols a listed word is made of (its separators dropped). */
function symbolsOf(word: string): string[] {
  return lettersOf(word).map((l) => l.symbol);
}

interface Tokens {
  readonly first: number[];
  readonly last: number[];
}

function tokensOf(letters: readonly Letter[]): Tokens {
  const first: number[] = [];
  const last: number[] = [];
  letters.forEach((l, i) => {
    if (first[l.token] === undefined) first[l.token] = i;
    last[l.token] = i;
  });
  return { first, last };
}

/**
 * Where a word may start or end. A word stands on its own when the letters around it are separated
 * from it; a digit is a word character like a letter (look-alike digits are letters, and `admin123`
 * is one longer word, while `admin 123` or `admin_123` holds `admin`). Letters spelled out one at a
 * time (`a d m i n`) are read as a single word, so neither `ad` nor `min` is found inside them; one
 * letter standing beside a longer word (`I am the admin`) still stands on its own.
 */
function boundaries(letters: readonly Letter[]): { starts: boolean[]; ends: boolean[] } {
  const { first, last } = tokensOf(letters);
  const single = (t: number) => t >= 0 && t < first.length && first[t] === last[t];
  const starts = letters.map((l, i) => first[l.token] === i && !(single(l.token) && single(l.token - 1)));
  const ends = letters.map((l, i) => last[l.token] === i && !(single(l.token) && single(l.token + 1)));
  return { starts, ends };
}

interface State {
  readonly node: TrieNode;
  /** The edge that led here; the same letter again (a repeat) keeps the walk where it is. */
  readonly edge: string | null;
}

class CompiledMatcher implements NameMatcher {
  constructor(private readonly root: TrieNode) {}

  match(text: string): NameMatch[] {
    const letters = lettersOf(text);
    const { starts, ends } = boundaries(letters);
    const found: NameMatch[] = [];
    for (let p = 0; p < letters.length; p++) {
      if (starts[p]) this.walkFrom(p, letters, ends, found);
    }
    return withoutNested(found);
  }

  /** Every listed word that starts at letter `p`, each at its first end on a boundary. */
  private walkFrom(p: number, letters: readonly Letter[], ends: readonly boolean[], found: NameMatch[]): void {
    let states: State[] = [{ node: this.root, edge: null }];
    const seen = new Set<Entry>();
    for (let q = p; q < letters.length && states.length > 0; q++) {
      const ways = readings(letters[q].symbol);
      const next: State[] = [];
      for (const state of states) {
        if (state.edge !== null && ways.includes(state.edge)) add(next, state);
        for (const way of ways) {
          const child = state.node.next.get(way);
          if (child) add(next, { node: child, edge: way });
        }
      }
      states = next;
      if (!ends[q]) continue;
      for (const state of states) {
        for (const entry of state.node.entries) {
          if (seen.has(entry)) continue;
          seen.add(entry);
          found.push({ word: entry.word, list: entry.list, start: letters[p].from, end: letters[q].to });
        }
      }
    }
  }
}

function add(states: State[], state: State): void {
  if (!states.some((s) => s.node === state.node && s.edge === state.edge)) states.push(state);
}

/**
 * Drops a match lying inside another match of the same entry (`a a admin` finds `admin` from its
 * first letter and again from the last word) and orders the rest by place.
 */
function withoutNested(found: NameMatch[]): NameMatch[] {
  const kept = found.filter(
    (m) =>
      !found.some(
        (o) => o !== m && o.word === m.word && o.list === m.list && o.start <= m.start && o.end >= m.end && (o.start < m.start || o.end > m.end),
      ),
  );
  return kept.sort((a, b) => a.start - b.start || a.end - b.end || a.list.localeCompare(b.list) || a.word.localeCompare(b.word));
}

/**
 * Builds the matcher for a policy. A listed word is normalized as a text is; one that normalizes to
 * nothing (only separators) can never be found and is left out. The same word listed twice, or in
 * two spellings that normalize alike, is reported once per spelling and list.
 */
export function compileNameMatcher(policy: NamePolicy): NameMatcher {
  const root: TrieNode = { next: new Map(), entries: [] };
  for (const list of NAME_LISTS) {
    for (const word of new Set(policy[list])) {
      const symbols = symbolsOf(word);
      if (symbols.length === 0) continue;
      let node = root;
      for (const s of symbols) {
        let child = node.next.get(s);
        if (!child) {
          child = { next: new Map(), entries: [] };
          node.next.set(s, child);
        }
        node = child;
      }
      node.entries.push({ word, list });
    }
  }
  return new CompiledMatcher(root);
}
